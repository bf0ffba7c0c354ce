extension Masker {
    /// Custom attributes with every value masked (keys are the app's names, left as they are).
    /// - Parameters:
    ///   - attributes: the attributes as given.
    ///   - field: the field they came in, named in a failure (each value is `field.key`).
    /// - Returns: the attributes with their values masked.
    /// - Throws: ``Validation/Failure`` as ``mask(_:field:)`` does.
    public func mask(_ attributes: [String: String], field: String = "attributes") throws(Validation.Failure) -> [String: String] {
        var masked = attributes
        for (key, value) in attributes {
            masked[key] = try mask(value, field: "\(field).\(key)")
        }
        return masked
    }

    /// Form answers with every text answer masked (booleans and ratings carry no text).
    /// - Parameters:
    ///   - answers: the answers by field key.
    ///   - field: the field they came in, named in a failure (each answer is `field.key`).
    /// - Returns: the answers with their text masked.
    /// - Throws: ``Validation/Failure`` as ``mask(_:field:)`` does.
    public func mask(_ answers: [String: FormValue], field: String = "answers") throws(Validation.Failure) -> [String: FormValue] {
        var masked = answers
        for (key, value) in answers {
            if case .text(let text) = value { masked[key] = .text(try mask(text, field: "\(field).\(key)")) }
        }
        return masked
    }

    /// Form answers as sent, with every text answer masked.
    /// - Parameters:
    ///   - answers: the answers.
    ///   - field: the field they came in, named in a failure.
    /// - Returns: the answers with their text masked.
    /// - Throws: ``Validation/Failure`` as ``mask(_:field:)`` does.
    public func mask(_ answers: FormAnswers, field: String = "form_answers") throws(Validation.Failure) -> FormAnswers {
        FormAnswers(try mask(answers.values, field: field))
    }
}
