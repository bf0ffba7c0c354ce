import ParleyCore

/// One row of the shared field validation table: a field, an answer, and what every side must say.
public struct FieldValidationCase: Sendable, CustomStringConvertible {
    /// What validation must say about the answer.
    public enum Expected: Hashable, Sendable {
        /// Accepted, normalised to this value.
        case value(FormValue)
        /// Accepted as "no answer" (an optional field left empty).
        case noAnswer
        /// Refused with this code.
        case error(FormErrorCode)
    }

    public var name: String
    public var field: FormField
    /// The answer as sent; nil when the key is missing.
    public var input: FormValue?
    public var expected: Expected

    public init(_ name: String, _ field: FormField, _ input: FormValue?, _ expected: Expected) {
        self.name = name
        self.field = field
        self.input = input
        self.expected = expected
    }

    public var description: String { "\(field.kind.rawValue): \(name)" }
}

/// Every field kind's validation, valid and invalid: the server, ParleyKit and ParleyCore each run
/// this table through their own paths and must agree case by case (issue 7).
public enum FieldValidationCases {
    static func field(_ kind: FormField.Kind, required: Bool = false, callingCode: String? = nil) -> FormField {
        let options: [FormField.Option] = kind.hasOptions
            ? [.init(value: "billing", label: ["en": "Billing"]), .init(value: "tech", label: ["en": "Technical"])]
            : []
        return FormField(key: "answer", kind: kind, isRequired: required, label: ["en": "Answer"], options: options,
                         defaultCallingCode: callingCode)
    }

    static let singleLine = field(.singleLine), singleLineRequired = field(.singleLine, required: true)
    static let multiLine = field(.multiLine), multiLineRequired = field(.multiLine, required: true)
    static let email = field(.email), emailRequired = field(.email, required: true)
    static let phone = field(.phone), phoneGermany = field(.phone, callingCode: "49")
    static let phoneUS = field(.phone, callingCode: "1"), phoneItaly = field(.phone, callingCode: "39")
    static let phoneRequired = field(.phone, required: true, callingCode: "44")
    static let select = field(.select), selectRequired = field(.select, required: true)
    static let radio = field(.radio), radioRequired = field(.radio, required: true)
    static let checkbox = field(.checkbox), checkboxRequired = field(.checkbox, required: true)
    static let rating = field(.rating), ratingRequired = field(.rating, required: true)

    /// The table: at least 60 rows covering every kind.
    public static let all: [FieldValidationCase] = [
        // Single line
        .init("plain text", singleLine, .text("Ann Smith"), .value(.text("Ann Smith"))),
        .init("trimmed", singleLine, .text("  Ann \t"), .value(.text("Ann"))),
        .init("missing, optional", singleLine, nil, .noAnswer),
        .init("blank, optional", singleLine, .text("   "), .noAnswer),
        .init("missing, required", singleLineRequired, nil, .error(.required)),
        .init("blank, required", singleLineRequired, .text(" \n "), .error(.required)),
        .init("line break inside", singleLine, .text("Ann\nSmith"), .error(.notSingleLine)),
        .init("exactly 200 characters", singleLine, .text(String(repeating: "a", count: 200)), .value(.text(String(repeating: "a", count: 200)))),
        .init("201 characters", singleLine, .text(String(repeating: "a", count: 201)), .error(.tooLong)),
        .init("200 emoji families pass the character limit but not the byte bound", singleLine, .text(String(repeating: "👨‍👩‍👧", count: 200)), .error(.tooLong)),
        .init("control character", singleLine, .text("Ann\u{0007}"), .error(.invalidCharacters)),
        .init("NUL", singleLine, .text("a\u{0000}b"), .error(.invalidCharacters)),
        .init("tab inside is kept", singleLine, .text("a\tb"), .value(.text("a\tb"))),
        .init("number instead of text", singleLine, .integer(42), .error(.wrongType)),
        .init("bool instead of text", singleLine, .bool(true), .error(.wrongType)),
        .init("markup is text", singleLine, .text("<b>Ann</b> & \"co\""), .value(.text("<b>Ann</b> & \"co\""))),
        // Multi line
        .init("several lines", multiLine, .text("Hello\nthere"), .value(.text("Hello\nthere"))),
        .init("CRLF becomes LF", multiLine, .text("a\r\nb\rc"), .value(.text("a\nb\nc"))),
        .init("outer blank lines trimmed", multiLine, .text("\n\n  text  \n\n"), .value(.text("text"))),
        .init("blank, required", multiLineRequired, .text("\n\t\n"), .error(.required)),
        .init("4,000 characters", multiLine, .text(String(repeating: "b", count: 4_000)), .value(.text(String(repeating: "b", count: 4_000)))),
        .init("4,001 characters", multiLine, .text(String(repeating: "b", count: 4_001)), .error(.tooLong)),
        .init("escape character", multiLine, .text("a\u{001B}[31mred"), .error(.invalidCharacters)),
        // Email
        .init("simple", email, .text("ann@example.com"), .value(.text("ann@example.com"))),
        .init("domain lowercased, local kept", email, .text("Ann.Smith@Example.COM"), .value(.text("Ann.Smith@example.com"))),
        .init("trimmed", email, .text("  ann@example.com\n"), .value(.text("ann@example.com"))),
        .init("plus tag and symbols", email, .text("a+tag!#$%&'*/=?^_`{|}~-@mail.example.org"), .value(.text("a+tag!#$%&'*/=?^_`{|}~-@mail.example.org"))),
        .init("hyphen and digits in domain", email, .text("x@my-host1.example.co.uk"), .value(.text("x@my-host1.example.co.uk"))),
        .init("punycode domain", email, .text("x@XN--BCHER-KVA.example"), .value(.text("x@xn--bcher-kva.example"))),
        .init("missing, optional", email, nil, .noAnswer),
        .init("missing, required", emailRequired, nil, .error(.required)),
        .init("no @", email, .text("ann.example.com"), .error(.invalidEmail)),
        .init("two @", email, .text("ann@x@example.com"), .error(.invalidEmail)),
        .init("empty local part", email, .text("@example.com"), .error(.invalidEmail)),
        .init("no dot in domain", email, .text("ann@localhost"), .error(.invalidEmail)),
        .init("leading dot in local part", email, .text(".ann@example.com"), .error(.invalidEmail)),
        .init("double dot in local part", email, .text("a..nn@example.com"), .error(.invalidEmail)),
        .init("label starts with hyphen", email, .text("ann@-example.com"), .error(.invalidEmail)),
        .init("label ends with hyphen", email, .text("ann@example-.com"), .error(.invalidEmail)),
        .init("empty label", email, .text("ann@example..com"), .error(.invalidEmail)),
        .init("trailing dot", email, .text("ann@example.com."), .error(.invalidEmail)),
        .init("space inside", email, .text("ann smith@example.com"), .error(.invalidEmail)),
        .init("quoted local part", email, .text("\"ann smith\"@example.com"), .error(.invalidEmail)),
        .init("IP literal", email, .text("ann@[192.0.2.1]"), .error(.invalidEmail)),
        .init("numeric top-level label", email, .text("ann@192.0.2.1"), .error(.invalidEmail)),
        .init("non-ASCII domain", email, .text("ann@bücher.example"), .error(.invalidEmail)),
        .init("local part of 64", email, .text(String(repeating: "l", count: 64) + "@example.com"), .value(.text(String(repeating: "l", count: 64) + "@example.com"))),
        .init("local part of 65", email, .text(String(repeating: "l", count: 65) + "@example.com"), .error(.invalidEmail)),
        .init("label of 64", email, .text("a@" + String(repeating: "d", count: 64) + ".com"), .error(.invalidEmail)),
        .init("255 characters", email, .text("a@" + Array(repeating: String(repeating: "d", count: 61), count: 4).joined(separator: ".") + ".example"), .error(.tooLong)),
        .init("markup", email, .text("<script>@example.com"), .error(.invalidEmail)),
        .init("number", email, .integer(1), .error(.wrongType)),
        // Phone
        .init("international with spaces", phone, .text("+49 30 1234567"), .value(.text("+49301234567"))),
        .init("dashes, dots, parentheses", phone, .text("+1 (212) 555-01.23"), .value(.text("+12125550123"))),
        .init("00 prefix", phone, .text("0049 30 1234567"), .value(.text("+49301234567"))),
        .init("written trunk (0)", phone, .text("+49 (0)30 1234567"), .value(.text("+49301234567"))),
        .init("00 prefix and written trunk (0)", phone, .text("0049 (0)30 1234567"), .value(.text("+49301234567"))),
        .init("00 prefix whose second 0 is a trunk (0)", phone, .text("0(0)"), .error(.invalidPhone)),
        .init("00 and a (0) with nothing after", phone, .text("00(0)"), .error(.invalidPhone)),
        .init("national with trunk 0", phoneGermany, .text("030 1234567"), .value(.text("+49301234567"))),
        .init("national without trunk", phoneUS, .text("(212) 555-0123"), .value(.text("+12125550123"))),
        .init("Italy keeps its leading 0", phoneItaly, .text("06 1234 5678"), .value(.text("+390612345678"))),
        .init("international ignores the default code", phoneGermany, .text("+44 20 7946 0958"), .value(.text("+442079460958"))),
        .init("national without default code", phone, .text("030 1234567"), .error(.invalidPhone)),
        .init("letters", phone, .text("+1 800 FLOWERS"), .error(.invalidPhone)),
        .init("extension", phone, .text("+49 30 1234567 ext. 12"), .error(.invalidPhone)),
        .init("too short", phone, .text("+49 301"), .error(.invalidPhone)),
        .init("shortest: 8 digits", phone, .text("+4930 1234"), .value(.text("+49301234"))),
        .init("7 digits", phone, .text("+4930123"), .error(.invalidPhone)),
        .init("longest: 15 digits", phone, .text("+123 456 789 012 345"), .value(.text("+123456789012345"))),
        .init("16 digits", phone, .text("+123 456 789 012 3456"), .error(.invalidPhone)),
        .init("plus in the middle", phone, .text("49+301234567"), .error(.invalidPhone)),
        .init("country code 0", phone, .text("+049 301234567"), .error(.invalidPhone)),
        .init("unpaired parenthesis", phone, .text("+1 (212 5550123"), .error(.invalidPhone)),
        .init("slash", phone, .text("+49 30/1234567"), .error(.invalidPhone)),
        .init("only a plus", phone, .text("+"), .error(.invalidPhone)),
        .init("Arabic-Indic digits", phone, .text("+٤٩٣٠١٢٣٤٥٦٧"), .error(.invalidPhone)),
        .init("missing, optional", phone, nil, .noAnswer),
        .init("missing, required", phoneRequired, .text(""), .error(.required)),
        .init("UK national, required", phoneRequired, .text("020 7946 0958"), .value(.text("+442079460958"))),
        .init("number instead of text", phone, .integer(4_930_123_456), .error(.wrongType)),
        // Select and radio
        .init("an option", select, .text("billing"), .value(.text("billing"))),
        .init("trimmed option", select, .text(" tech "), .value(.text("tech"))),
        .init("not an option", select, .text("sales"), .error(.notAnOption)),
        .init("an option's label is not its value", select, .text("Billing"), .error(.notAnOption)),
        .init("missing, optional", select, nil, .noAnswer),
        .init("missing, required", selectRequired, nil, .error(.required)),
        .init("an option", radio, .text("tech"), .value(.text("tech"))),
        .init("not an option", radio, .text("other"), .error(.notAnOption)),
        .init("blank, required", radioRequired, .text(" "), .error(.required)),
        .init("number", radio, .integer(1), .error(.wrongType)),
        // Checkbox
        .init("ticked", checkbox, .bool(true), .value(.bool(true))),
        .init("unticked", checkbox, .bool(false), .value(.bool(false))),
        .init("missing, optional, is false", checkbox, nil, .value(.bool(false))),
        .init("text true", checkbox, .text("TRUE"), .value(.bool(true))),
        .init("text false", checkbox, .text("false"), .value(.bool(false))),
        .init("text maybe", checkbox, .text("maybe"), .error(.wrongType)),
        .init("number", checkbox, .integer(1), .error(.wrongType)),
        .init("required, ticked", checkboxRequired, .bool(true), .value(.bool(true))),
        .init("required, unticked", checkboxRequired, .bool(false), .error(.required)),
        .init("required, missing", checkboxRequired, nil, .error(.required)),
        // Rating
        .init("1", rating, .integer(1), .value(.integer(1))),
        .init("5", rating, .integer(5), .value(.integer(5))),
        .init("0", rating, .integer(0), .error(.outOfRange)),
        .init("6", rating, .integer(6), .error(.outOfRange)),
        .init("negative", rating, .integer(-3), .error(.outOfRange)),
        .init("text digits", rating, .text(" 4 "), .value(.integer(4))),
        .init("text out of range", rating, .text("10"), .error(.outOfRange)),
        .init("text not a number", rating, .text("four"), .error(.wrongType)),
        .init("text fraction", rating, .text("4.5"), .error(.wrongType)),
        .init("huge text number", rating, .text("99999999999999999999"), .error(.wrongType)),
        .init("bool", rating, .bool(true), .error(.wrongType)),
        .init("missing, optional", rating, nil, .noAnswer),
        .init("missing, required", ratingRequired, nil, .error(.required)),
        .init("blank, required", ratingRequired, .text(""), .error(.required)),
    ]
}
