import Foundation
import FuzzSupport
import ParleyCore

/// Builds a form and its answers from the fuzzer's bytes.
enum FormInput {
    /// `{"form": {…}, "answers": {…}}` as the server's routes decode each half.
    struct Submission: Decodable {
        var form: Form
        var answers: FormAnswers
    }

    static func json(_ bytes: [UInt8]) -> (form: Form, answers: FormAnswers)? {
        guard let submission = try? ParleyJSON.decode(Submission.self, from: Data(bytes)) else { return nil }
        return (submission.form, submission.answers)
    }

    /// The structured layout:
    ///
    ///     form byte     kind (% 3), field count (1 + (byte >> 2) % 6)
    ///     per field     kind byte: kind (% 8), 0x08 required, 0x10 key from the input (else f0, f1…),
    ///                   0x20 a default calling code, 0x40 options even for a kind without them
    ///                   [key NUL] [calling code NUL] [option count byte, each option value NUL]
    ///                   answer byte (% 5): none, text NUL, bool, integer (1–8 bytes), an option's value
    ///     then          extra answers: key NUL, text NUL, until the end
    static func structured(_ input: inout FuzzInput) -> (form: Form, answers: FormAnswers) {
        let header = input.byte()
        let kind = Form.Kind.allCases[Int(header) % Form.Kind.allCases.count]
        let count = 1 + Int(header >> 2) % 6
        var fields: [FormField] = []
        var answers = FormAnswers()
        for index in 0..<count {
            let flags = input.byte()
            let fieldKind = FormField.Kind.allCases[Int(flags) % FormField.Kind.allCases.count]
            let key = flags & 0x10 != 0 ? input.string(limit: 80) : "f\(index)"
            let callingCode = flags & 0x20 != 0 ? input.string(limit: 8) : nil
            var options: [FormField.Option] = []
            if fieldKind.hasOptions || flags & 0x40 != 0 {
                for _ in 0..<(input.choice(5)) {
                    options.append(.init(value: input.string(limit: 120), label: ["en": "Option"]))
                }
            }
            let field = FormField(key: key, kind: fieldKind, isRequired: flags & 0x08 != 0, label: ["en": "Question"],
                                  options: options, defaultCallingCode: callingCode)
            fields.append(field)
            answers[key] = answer(&input, options: options)
        }
        while !input.isAtEnd {
            answers[input.string(limit: 80)] = .text(input.string())
        }
        return (Form(kind: kind, fields: fields), answers)
    }

    static func answer(_ input: inout FuzzInput, options: [FormField.Option]) -> FormValue? {
        switch input.choice(5) {
        case 0: return nil
        case 1: return .text(input.string())
        case 2: return .bool(input.byte() & 1 == 1)
        case 3: return .integer(input.integer(bytes: 1 + input.choice(8)))
        default:
            guard !options.isEmpty else { return .text(input.string()) }
            let option = input.pick(options).value
            return .text(input.pick(["", " ", "\t", "\n", "\u{A0}"]) + option + input.pick(["", " ", "\r\n", "\u{3000}"]))
        }
    }
}
