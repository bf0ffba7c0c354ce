extension FormField {
    /// Checks one answer and returns it normalised; the one rule set of server and ParleyKit alike.
    ///
    /// - No answer, or text that is blank after trimming, is "no answer": `.failure(.required)` for a
    ///   required field, else `.success(nil)` — except an optional checkbox, which answers `false`.
    /// - Text kinds take ``FormValue/text(_:)`` and return it trimmed; multi-line text has its line
    ///   breaks written as `\n`. Control characters other than tab (and line breaks in multi-line
    ///   text) are refused.
    /// - Email and phone return ``EmailAddress/normalize(_:)`` and ``PhoneNumber/normalize(_:defaultCallingCode:)``.
    /// - Select and radio return the trimmed text when it is exactly one option's value.
    /// - Checkbox takes a boolean, or the text `true` / `false` in any case; a required one must be true.
    /// - Rating takes a whole number, or text of digits, from 1 to 5.
    public func validate(_ answer: FormValue?) -> Result<FormValue?, FormErrorCode> {
        switch kind {
        case .checkbox: return validateCheckbox(answer)
        case .rating: return validateRating(answer)
        default: break
        }
        guard let answer else { return isRequired ? .failure(.required) : .success(nil) }
        guard case .text(let raw) = answer else { return .failure(.wrongType) }
        let text = raw.trimmingWhitespace()
        if text.isEmpty { return isRequired ? .failure(.required) : .success(nil) }
        switch kind {
        case .singleLine:
            if text.contains(where: \.isNewline) { return .failure(.notSingleLine) }
            return checkedText(text, maxLength: Limits.maxSingleLineAnswerLength, allowsNewlines: false)
        case .multiLine:
            let unified = text.replacingLineBreaks()
            return checkedText(unified, maxLength: Limits.maxMultiLineAnswerLength, allowsNewlines: true)
        case .email:
            if text.count > Limits.maxEmailLength { return .failure(.tooLong) }
            return EmailAddress.normalize(text).map { .success(.text($0)) } ?? .failure(.invalidEmail)
        case .phone:
            return PhoneNumber.normalize(text, defaultCallingCode: defaultCallingCode).map { .success(.text($0)) }
                ?? .failure(.invalidPhone)
        case .select, .radio:
            return options.contains { $0.value == text } ? .success(.text(text)) : .failure(.notAnOption)
        case .checkbox, .rating:
            preconditionFailure("handled above")
        }
    }

    private func checkedText(_ text: String, maxLength: Int, allowsNewlines: Bool) -> Result<FormValue?, FormErrorCode> {
        let hasControl = text.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control && scalar != "\t" && !(allowsNewlines && scalar == "\n")
        }
        if hasControl { return .failure(.invalidCharacters) }
        // Characters for people; bytes bound what a store must hold for stacked combining marks.
        if text.count > maxLength || text.utf8.count > maxLength * 4 { return .failure(.tooLong) }
        return .success(.text(text))
    }

    private func validateCheckbox(_ answer: FormValue?) -> Result<FormValue?, FormErrorCode> {
        let isChecked: Bool
        switch answer {
        case nil: isChecked = false
        case .bool(let bool): isChecked = bool
        case .text(let text):
            switch text.trimmingWhitespace().lowercased() {
            case "true": isChecked = true
            case "false", "": isChecked = false
            default: return .failure(.wrongType)
            }
        case .integer: return .failure(.wrongType)
        }
        if isRequired && !isChecked { return .failure(.required) }
        return .success(.bool(isChecked))
    }

    private func validateRating(_ answer: FormValue?) -> Result<FormValue?, FormErrorCode> {
        let rating: Int
        switch answer {
        case nil: return isRequired ? .failure(.required) : .success(nil)
        case .integer(let integer): rating = integer
        case .text(let raw):
            let text = raw.trimmingWhitespace()
            if text.isEmpty { return isRequired ? .failure(.required) : .success(nil) }
            guard text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }), let integer = Int(text) else {
                return .failure(.wrongType)
            }
            rating = integer
        case .bool: return .failure(.wrongType)
        }
        return (1...5).contains(rating) ? .success(.integer(rating)) : .failure(.outOfRange)
    }
}
