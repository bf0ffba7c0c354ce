/// A stable machine code for why an answer was refused: clients switch on it and translate it, the
/// server sends it in error bodies. New codes may be added; unknown ones should read as "invalid".
public struct FormErrorCode: Error, RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A required field has no answer (blank text counts as none; a required checkbox is unticked).
    public static let required = FormErrorCode(rawValue: "required")
    /// The text is longer than the field's limit.
    public static let tooLong = FormErrorCode(rawValue: "too_long")
    /// A single-line field's answer contains a line break.
    public static let notSingleLine = FormErrorCode(rawValue: "not_single_line")
    /// The text contains control characters (other than tab, and line breaks where allowed).
    public static let invalidCharacters = FormErrorCode(rawValue: "invalid_characters")
    /// Not an email address we accept (see ``EmailAddress``).
    public static let invalidEmail = FormErrorCode(rawValue: "invalid_email")
    /// Not a phone number we can write in E.164 (see ``PhoneNumber``).
    public static let invalidPhone = FormErrorCode(rawValue: "invalid_phone")
    /// A select or radio answer that is none of the field's option values.
    public static let notAnOption = FormErrorCode(rawValue: "not_an_option")
    /// A rating outside 1…5.
    public static let outOfRange = FormErrorCode(rawValue: "out_of_range")
    /// The answer has the wrong JSON type for the field (a number for an email, "maybe" for a checkbox).
    public static let wrongType = FormErrorCode(rawValue: "wrong_type")
    /// An answer for a key the form does not have.
    public static let unknownField = FormErrorCode(rawValue: "unknown_field")

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// Every refused answer of one submission, in the form's field order, then unknown keys A–Z.
///
/// On the wire: `{"fields": [{"key": "email", "code": "invalid_email"}]}`.
public struct FormValidationErrors: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// One refused answer.
    public struct FieldError: Hashable, Sendable, Codable {
        /// The field key (or the unknown key that was sent).
        public var key: String
        public var code: FormErrorCode
        public init(key: String, code: FormErrorCode) {
            self.key = key
            self.code = code
        }
    }

    public var fields: [FieldError]

    public init(fields: [FieldError]) { self.fields = fields }

    /// The code for a key, or nil when that answer was accepted.
    public subscript(key: String) -> FormErrorCode? { fields.first { $0.key == key }?.code }

    public var description: String { fields.map { "\($0.key): \($0.code)" }.joined(separator: ", ") }
}

/// What is wrong with a definition an admin posted (a ``Form`` or ``BusinessHours``): every problem
/// at once, each with the path of the part at fault (`fields[2].options`) and a message for people.
public struct DefinitionError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// One problem.
    public struct Problem: Hashable, Sendable, Codable, CustomStringConvertible {
        /// Where: `fields[2].label`, `weekly.monday[1]`, `time_zone`.
        public var path: String
        public var message: String
        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
        public var description: String { "\(path): \(message)" }
    }

    public var problems: [Problem]

    public init(problems: [Problem]) { self.problems = problems }

    public var description: String { problems.map(\.description).joined(separator: "; ") }
}
