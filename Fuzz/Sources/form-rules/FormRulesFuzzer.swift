import Foundation
import FuzzSupport
import ParleyCore
import ParleyStore

/// Forms and answers made from the input, validated by the rules the server and ParleyKit share.
///
/// Input, either
/// - JSON (first byte `{`): `{"form": {…}, "answers": {…}}`, decoded with `ParleyJSON` as the server
///   decodes an admin's form and a visitor's answers; or
/// - bytes read by `FormInput`: the fields (kind, required, key, options, calling code, labels) and
///   one answer for each, then answers for keys the form lacks.
///
/// Only forms that pass `checkDefinition()` are used: no other form is ever stored or served.
///
/// Checked:
/// - every refused answer names a field of the form or a key it lacks (`unknown_field`), with a
///   known code; every accepted key is a field's;
/// - accepted answers have their kind's normalised shape: trimmed one-line text of at most 200
///   characters, multi-line text of at most 4,000 with `\n` breaks, a normalised email address, an
///   E.164 phone number, one of the options, a boolean, a rating 1–5; a required field has an answer;
/// - validation is idempotent: a normalised answer validates to itself;
/// - the stores keep accepted answers unchanged (`FormRules.encode` then `FormRules.decode`).
@_cdecl("LLVMFuzzerTestOneInput")
public func formRulesFuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    let submission: (form: Form, answers: FormAnswers)?
    if input.bytes.first == UInt8(ascii: "{") {
        submission = FormInput.json(input.bytes)
    } else {
        submission = FormInput.structured(&input)
    }
    if let submission {
        FormRulesFuzzer.check(submission.form, submission.answers)
    }
    return 0
}

enum FormRulesFuzzer {
    static let codes: Set<FormErrorCode> = [
        .required, .tooLong, .notSingleLine, .invalidCharacters, .invalidEmail, .invalidPhone, .notAnOption, .outOfRange, .wrongType,
        .unknownField,
    ]

    static func check(_ form: Form, _ answers: FormAnswers) {
        guard (try? form.checkDefinition()) != nil else { return }
        let keys = Set(form.fields.map(\.key))
        switch form.validate(answers) {
        case .success(let accepted):
            promise(Set(accepted.keys).isSubset(of: keys), "accepted keys \(accepted.keys.sorted()) outside the form's \(keys.sorted())")
            promise(answers.values.keys.allSatisfy(keys.contains), "answers for unknown keys accepted: \(answers.values.keys.sorted())")
            storesKeep(accepted, kind: form.kind)
            let again = form.validate(FormAnswers(accepted))
            promise(again == .success(accepted), "validating the normalised \(accepted) gives \(again)")
        case .failure(let errors):
            promise(!errors.fields.isEmpty, "a failure without a refused answer")
            for error in errors.fields {
                promise(codes.contains(error.code), "unknown code \(error.code)")
                if error.code == .unknownField {
                    promise(!keys.contains(error.key) && answers[error.key] != nil, "unknown_field for \(error.key)")
                } else {
                    promise(keys.contains(error.key), "\(error.code) for \(error.key), which the form lacks")
                }
            }
        }
        for field in form.fields {
            checkField(field, answer: answers[field.key])
        }
    }

    /// One field's answer: its normalised shape, and normalising it again changes nothing.
    static func checkField(_ field: FormField, answer: FormValue?) {
        guard case .success(let normalised) = field.validate(answer) else { return }
        guard let value = normalised else {
            promise(!field.isRequired, "required \(field.kind) field \(field.key) accepted no answer for \(String(describing: answer))")
            return
        }
        promise(field.validate(value) == .success(value), "\(field.kind): \(value) validates to \(field.validate(value))")
        switch field.kind {
        case .checkbox:
            guard case .bool(let isChecked) = value else { brokenPromise("a checkbox gave \(value)") }
            promise(isChecked || !field.isRequired, "a required checkbox accepted false")
        case .rating:
            guard case .integer(let rating) = value else { brokenPromise("a rating gave \(value)") }
            promise((1...5).contains(rating), "rating \(rating)")
        case .singleLine, .multiLine, .email, .phone, .select, .radio:
            guard case .text(let text) = value else { brokenPromise("a \(field.kind) field gave \(value)") }
            promise(!text.isEmpty && text == trimmed(text), "\(field.kind): \(text.debugDescription) is not trimmed")
            checkText(text, of: field)
        }
    }

    static func checkText(_ text: String, of field: FormField) {
        switch field.kind {
        case .singleLine:
            promise(text.count <= Limits.maxSingleLineAnswerLength && !text.contains(where: \.isNewline), "single line \(text.debugDescription)")
        case .multiLine:
            promise(text.count <= Limits.maxMultiLineAnswerLength, "multi-line answer of \(text.count) characters")
            promise(!text.unicodeScalars.contains { $0 != "\n" && $0.isLineBreak }, "multi-line break not \\n: \(text.debugDescription)")
        case .email:
            promise(EmailAddress.normalize(text) == text && text.count <= Limits.maxEmailLength, "email \(text.debugDescription)")
        case .phone:
            let digits = text.utf8.dropFirst()
            promise(text.first == "+" && (8...15).contains(digits.count) && digits.first != UInt8(ascii: "0")
                    && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }, "phone \(text.debugDescription) is not E.164")
        case .select, .radio:
            promise(field.options.contains { $0.value == text }, "\(text.debugDescription) is none of the options")
        case .checkbox, .rating:
            break
        }
    }

    /// What the stores write and read back is what was accepted.
    static func storesKeep(_ accepted: [String: FormValue], kind: Form.Kind) {
        do {
            let stored = try FormRules.encode(accepted)
            let read = try FormRules.decode(kind: kind.rawValue, answers: stored, submittedAt: Date(timeIntervalSince1970: 0))
            promise(read?.answers == accepted, "stored \(accepted) as \(stored), read back \(String(describing: read?.answers))")
        } catch {
            brokenPromise("the stores cannot keep \(accepted): \(error)")
        }
    }

    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

extension Unicode.Scalar {
    /// The scalars `Character.isNewline` stands for: LF, VT, FF, CR, NEL, LS, PS.
    var isLineBreak: Bool { [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029].contains(value) }
}
