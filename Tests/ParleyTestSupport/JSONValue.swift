import Foundation

/// Any JSON value, with whole numbers kept apart from the others, for tests that look at a body's
/// shape rather than decode it into a Parley type (the OpenAPI checks).
public enum JSONValue: Hashable, Sendable, Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool before the numbers: a decoder may read `true` as 1 when asked for a number.
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses JSON text.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let members) = self { members } else { nil } }
    public var array: [JSONValue]? { if case .array(let items) = self { items } else { nil } }

    /// The value as a number, whole or not.
    public var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The JSON type names the value has (`integer` values are `number`s too).
    var typeNames: Set<String> {
        switch self {
        case .null: ["null"]
        case .bool: ["boolean"]
        case .integer: ["integer", "number"]
        case .number(let value): value.rounded() == value ? ["integer", "number"] : ["number"]
        case .string: ["string"]
        case .array: ["array"]
        case .object: ["object"]
        }
    }
}
