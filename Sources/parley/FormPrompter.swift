import Foundation
import ParleyCore

/// Asks a form's fields one by one in the terminal, in the visitor's language: labels, hints,
/// numbered options, what is required. Checking is the form's own (``Form/validate(_:)``), run by
/// the chat screen model; this only reads what is typed.
struct FormPrompter {
    var languages: [String]
    var lines: AsyncStream<String>.AsyncIterator

    /// Reads answers for `form`. With `errors`, asks again only the refused fields, keeping `previous`.
    /// Nil when input ends.
    mutating func ask(_ form: Form, errors: FormValidationErrors? = nil, previous: FormAnswers = FormAnswers()) async -> FormAnswers? {
        var answers = previous
        let fields = errors.map { refused in form.fields.filter { refused[$0.key] != nil } } ?? form.fields
        for field in fields {
            if let code = errors?[field.key] { TerminalIO.say("· \(field.label(for: languages)): \(Self.explain(code))") }
            TerminalIO.say(prompt(for: field))
            guard let line = await lines.next() else { return nil }
            answers[field.key] = Self.value(line.trimmingCharacters(in: .whitespaces), for: field)
        }
        return answers
    }

    func prompt(for field: FormField) -> String {
        var text = "? " + field.label(for: languages) + (field.isRequired ? " (required)" : " (Enter to skip)")
        if let hint = field.hint(for: languages), !hint.isEmpty { text += " — " + hint }
        switch field.kind {
        case .select, .radio:
            text += "\n" + field.options.enumerated().map { "  \($0.offset + 1)) \(LocalizedText.resolve($0.element.label, for: languages) ?? $0.element.value)" }
                .joined(separator: "\n")
        case .checkbox: text += " [y/n]"
        case .rating: text += " [1–5]"
        case .singleLine, .email, .phone, .multiLine: break
        }
        return text
    }

    /// What a typed line means for a field: an option by number or value, yes/no, a whole number,
    /// or the text as typed (the form's rules judge it).
    static func value(_ line: String, for field: FormField) -> FormValue? {
        guard !line.isEmpty else { return nil }
        switch field.kind {
        case .select, .radio:
            if let number = Int(line), field.options.indices.contains(number - 1) { return .text(field.options[number - 1].value) }
            return .text(line)
        case .checkbox:
            return ["y", "yes", "1", "true"].contains(line.lowercased()) ? .bool(true) : ["n", "no", "0", "false"].contains(line.lowercased()) ? .bool(false) : .text(line)
        case .rating:
            return Int(line).map(FormValue.integer) ?? .text(line)
        case .singleLine, .email, .phone, .multiLine:
            return .text(line)
        }
    }

    static func explain(_ code: FormErrorCode) -> String {
        switch code {
        case .required: "an answer is needed"
        case .invalidEmail: "that is not an email address"
        case .invalidPhone: "that is not a phone number (try +49 30 1234567)"
        case .notAnOption: "choose one of the numbers"
        case .outOfRange: "a number from 1 to 5"
        case .tooLong: "that is too long"
        default: code.rawValue.replacingOccurrences(of: "_", with: " ")
        }
    }
}
