extension Form {
    /// Checks a definition an admin posted, and throws every problem at once.
    ///
    /// A form has 1 to ``Limits/maxFormFields`` fields with unique, well-shaped keys (1–64 of `a-z`,
    /// `0-9`, `_`, starting with a letter). Each field has a label with at least one non-blank text,
    /// labels and hints within their lengths, keyed by well-formed language tags. Select and radio
    /// fields have 1 to ``Limits/maxFormOptions`` options with unique, non-blank, trimmed values;
    /// other kinds have none. Only phone fields take a default calling code (1–3 digits, no leading 0).
    /// - Throws: ``DefinitionError`` listing each problem with its path (`fields[2].options`).
    public func checkDefinition() throws(DefinitionError) {
        var problems: [DefinitionError.Problem] = []
        func problem(_ path: String, _ message: String) { problems.append(.init(path: path, message: message)) }

        if fields.isEmpty { problem("fields", "a form needs at least one field") }
        if fields.count > Limits.maxFormFields { problem("fields", "a form has at most \(Limits.maxFormFields) fields") }
        var seenKeys: Set<String> = []
        for (index, field) in fields.enumerated() {
            let path = "fields[\(index)]"
            if !Self.isWellFormedKey(field.key) {
                problem("\(path).key", "use 1 to \(Limits.maxFormFieldKeyLength) characters of a-z, 0-9 and _, starting with a letter")
            } else if !seenKeys.insert(field.key).inserted {
                problem("\(path).key", "the key \(field.key) is used twice")
            }
            if !field.label.values.contains(where: { !$0.trimmingWhitespace().isEmpty }) {
                problem("\(path).label", "a field needs a label in at least one language")
            }
            for message in Self.localizedTextProblems(field.label, maxLength: Limits.maxFormLabelLength) {
                problem("\(path).label", message)
            }
            for message in Self.localizedTextProblems(field.hint, maxLength: Limits.maxFormHintLength) {
                problem("\(path).hint", message)
            }
            if field.kind.hasOptions {
                if field.options.isEmpty { problem("\(path).options", "a \(field.kind.rawValue) field needs at least one option") }
                if field.options.count > Limits.maxFormOptions { problem("\(path).options", "at most \(Limits.maxFormOptions) options") }
                var seenValues: Set<String> = []
                for (optionIndex, option) in field.options.enumerated() {
                    let optionPath = "\(path).options[\(optionIndex)]"
                    if option.value.isEmpty || option.value != option.value.trimmingWhitespace()
                        || option.value.count > Limits.maxFormOptionValueLength {
                        problem("\(optionPath).value", "use 1 to \(Limits.maxFormOptionValueLength) characters without surrounding spaces")
                    } else if !seenValues.insert(option.value).inserted {
                        problem("\(optionPath).value", "the value \(option.value) is used twice")
                    }
                    for message in Self.localizedTextProblems(option.label, maxLength: Limits.maxFormLabelLength) {
                        problem("\(optionPath).label", message)
                    }
                }
            } else if !field.options.isEmpty {
                problem("\(path).options", "only select and radio fields have options")
            }
            if let code = field.defaultCallingCode {
                if field.kind != .phone {
                    problem("\(path).default_calling_code", "only phone fields have a default calling code")
                } else if !PhoneNumber.isCallingCode(code) {
                    problem("\(path).default_calling_code", "use 1 to 3 digits, not starting with 0, such as 49")
                }
            }
        }
        if !problems.isEmpty { throw DefinitionError(problems: problems) }
    }

    static func isWellFormedKey(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, ("a"..."z").contains(first),
              key.unicodeScalars.count <= Limits.maxFormFieldKeyLength
        else { return false }
        return key.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || $0.isASCIIDigit || $0 == "_" }
    }

    static func localizedTextProblems(_ texts: [String: String], maxLength: Int) -> [String] {
        var messages: [String] = []
        if texts.count > Limits.maxFormLanguages { messages.append("at most \(Limits.maxFormLanguages) languages") }
        for (tag, text) in texts.sorted(by: { $0.key < $1.key }) {
            if !LocalizedText.isWellFormedTag(tag) { messages.append("\(tag) is not a language tag such as en or pt-BR") }
            if text.count > maxLength { messages.append("the \(tag) text has more than \(maxLength) characters") }
        }
        return messages
    }
}
