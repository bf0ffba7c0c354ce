/// One answer to a field as JSON carries it: a string, a boolean or a whole number.
///
/// Answers arrive in this shape and leave ``Form/validate(_:)`` normalised: text fields, email,
/// phone, select and radio as ``text(_:)``, checkboxes as ``bool(_:)``, ratings as ``integer(_:)``.
public enum FormValue: Hashable, Sendable, Codable, CustomStringConvertible {
    case text(String)
    case bool(Bool)
    case integer(Int)

    /// The text, when this is text.
    public var text: String? { if case .text(let text) = self { text } else { nil } }

    public var description: String {
        switch self {
        case .text(let text): text
        case .bool(let bool): String(bool)
        case .integer(let integer): String(integer)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool first: some decoders turn JSON `true` into 1 when asked for an Int.
        if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int.self) {
            self = .integer(integer)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "an answer is a string, a boolean or a whole number")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .bool(let bool): try container.encode(bool)
        case .integer(let integer): try container.encode(integer)
        }
    }
}

/// A visitor's answers to a form, by field key, as sent: `{"email": "Ann@Example.COM", "rating": 5}`.
public struct FormAnswers: Hashable, Sendable, Codable, ExpressibleByDictionaryLiteral {
    public var values: [String: FormValue]

    /// Creates answers from values by field key.
    public init(_ values: [String: FormValue] = [:]) { self.values = values }

    public init(dictionaryLiteral elements: (String, FormValue)...) {
        self.values = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// The answer for a field key.
    public subscript(key: String) -> FormValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: FormValue].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}
