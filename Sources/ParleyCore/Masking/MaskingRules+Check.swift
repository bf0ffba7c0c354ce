import Foundation

extension MaskingRules {
    /// Checks rules before they are stored: at most ``maxCustomRules`` custom rules, each with a
    /// name, a pattern and a replacement of the allowed sizes, names unique, and each pattern
    ///
    /// - compiling as an ICU regular expression;
    /// - free of the shapes that make matching take exponential time (a repeated group holding a
    ///   repetition or an alternation, like `(a+)+` or `(a|ab)*`) and of back-references;
    /// - never matching empty text, and not matching its own replacement (masking twice would
    ///   change the text again);
    /// - finishing well within its runtime limit on texts of the longest message made to slow it
    ///   down (see `RegexSafety`).
    ///
    /// - Throws: ``Validation/Failure`` naming the first field at fault (`custom[2].pattern`).
    public func check() throws(Validation.Failure) {
        guard customRules.count <= Self.maxCustomRules else {
            throw Validation.Failure(field: "custom", message: "at most \(Self.maxCustomRules) custom rules")
        }
        var names = Set<String>()
        for (index, rule) in customRules.enumerated() {
            let field = "custom[\(index)]"
            try Self.checkLine(rule.name, field: "\(field).name", maxLength: CustomMaskingRule.maxNameLength)
            guard names.insert(rule.name.lowercased()).inserted else {
                throw Validation.Failure(field: "\(field).name", message: "another rule has this name")
            }
            guard !rule.pattern.isEmpty, rule.pattern.utf8.count <= CustomMaskingRule.maxPatternBytes else {
                throw Validation.Failure(field: "\(field).pattern", message: "1 to \(CustomMaskingRule.maxPatternBytes) bytes")
            }
            try Self.checkLine(rule.replacement, field: "\(field).replacement", maxLength: CustomMaskingRule.maxReplacementLength)
            if let problem = RegexSafety.problem(in: rule.pattern) {
                throw Validation.Failure(field: "\(field).pattern", message: problem)
            }
            let compiled: CompiledMaskingRule
            do {
                compiled = try CompiledMaskingRule(rule)
            } catch {
                throw Validation.Failure(field: "\(field).pattern", message: "not a valid regular expression")
            }
            if let problem = RegexSafety.problem(running: compiled) {
                throw Validation.Failure(field: "\(field).pattern", message: problem)
            }
        }
    }

    private static func checkLine(_ text: String, field: String, maxLength: Int) throws(Validation.Failure) {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty, text.count <= maxLength, text.utf8.count <= maxLength * 4,
              !text.unicodeScalars.contains(where: { [.control, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) })
        else { throw Validation.Failure(field: field, message: "1 to \(maxLength) characters on one line") }
    }
}
