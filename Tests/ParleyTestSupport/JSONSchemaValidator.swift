import Foundation

/// A JSON Schema validator for the subset the OpenAPI document uses: `$ref` (within the document),
/// `type`, `properties`, `required`, `additionalProperties`, `items`, `minItems`/`maxItems`, `enum`,
/// `const`, `oneOf` (by `discriminator` when there is one), `anyOf`, `allOf`, `pattern`,
/// `minLength`/`maxLength`, `minimum`/`maximum`, and the formats `date-time` and `date`.
/// Keywords outside the subset are ignored, like annotations (`description`, `examples`, `default`).
public struct JSONSchemaValidator: Sendable {
    /// The document `$ref`s point into.
    public let root: JSONValue

    public init(root: JSONValue) { self.root = root }

    /// Every way `value` breaks `schema`, each with the path of the part at fault; empty when it conforms.
    public func problems(_ value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        guard case .object(let keywords) = schema else { return [] }
        if let reference = keywords["$ref"]?.string {
            guard let target = resolve(reference) else { return ["\(path): unresolved $ref \(reference)"] }
            return problems(value, against: target, at: path)
        }
        var found: [String] = []
        if let type = keywords["type"] {
            let allowed = Set(type.array?.compactMap(\.string) ?? type.string.map { [$0] } ?? [])
            if allowed.isDisjoint(with: value.typeNames) {
                return ["\(path): \(Self.describe(value)) is not of type \(allowed.sorted().joined(separator: " or "))"]
            }
        }
        if let options = keywords["enum"]?.array, !options.contains(where: { Self.equal($0, value) }) {
            found.append("\(path): \(Self.describe(value)) is not one of the enum's values")
        }
        if let constant = keywords["const"], !Self.equal(constant, value) {
            found.append("\(path): \(Self.describe(value)) is not the constant \(Self.describe(constant))")
        }
        found += stringProblems(value, keywords, path) + numberProblems(value, keywords, path)
        found += objectProblems(value, keywords, path) + arrayProblems(value, keywords, path)
        found += compositionProblems(value, keywords, path)
        return found
    }

    /// The schema a local `$ref` (`#/components/schemas/Conversation`) names.
    public func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node = root
        for part in reference.dropFirst(2).split(separator: "/") {
            let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = node[key] else { return nil }
            node = next
        }
        return node
    }

    private func stringProblems(_ value: JSONValue, _ keywords: [String: JSONValue], _ path: String) -> [String] {
        guard case .string(let text) = value else { return [] }
        var found: [String] = []
        if let pattern = keywords["pattern"]?.string {
            let regex = try? NSRegularExpression(pattern: pattern)
            if regex?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil {
                found.append("\(path): \"\(text.prefix(60))\" does not match \(pattern)")
            }
        }
        if let minimum = keywords["minLength"]?.double, Double(text.unicodeScalars.count) < minimum {
            found.append("\(path): shorter than \(Int(minimum))")
        }
        if let maximum = keywords["maxLength"]?.double, Double(text.unicodeScalars.count) > maximum {
            found.append("\(path): longer than \(Int(maximum))")
        }
        switch keywords["format"]?.string {
        case "date-time":
            let formats: [Date.ISO8601FormatStyle] = [.init(includingFractionalSeconds: true), .init()]
            if !formats.contains(where: { (try? $0.parse(text)) != nil }) { found.append("\(path): \"\(text)\" is not a date-time") }
        case "date":
            if (try? Date.ISO8601FormatStyle().year().month().day().parse(text)) == nil { found.append("\(path): \"\(text)\" is not a date") }
        default:
            break
        }
        return found
    }

    private func numberProblems(_ value: JSONValue, _ keywords: [String: JSONValue], _ path: String) -> [String] {
        guard let number = value.double else { return [] }
        var found: [String] = []
        if let minimum = keywords["minimum"]?.double, number < minimum { found.append("\(path): \(number) is below \(minimum)") }
        if let maximum = keywords["maximum"]?.double, number > maximum { found.append("\(path): \(number) is above \(maximum)") }
        return found
    }

    private func objectProblems(_ value: JSONValue, _ keywords: [String: JSONValue], _ path: String) -> [String] {
        guard case .object(let members) = value else { return [] }
        var found: [String] = []
        for case .string(let name) in keywords["required"]?.array ?? [] where members[name] == nil {
            found.append("\(path): missing required \(name)")
        }
        let properties = keywords["properties"]?.object ?? [:]
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            if let schema = properties[name] {
                found += problems(member, against: schema, at: "\(path).\(name)")
            } else if let additional = keywords["additionalProperties"] {
                if case .bool(false) = additional {
                    found.append("\(path): \(name) is not allowed")
                } else {
                    found += problems(member, against: additional, at: "\(path).\(name)")
                }
            }
        }
        return found
    }

    private func arrayProblems(_ value: JSONValue, _ keywords: [String: JSONValue], _ path: String) -> [String] {
        guard case .array(let items) = value else { return [] }
        var found: [String] = []
        if let minimum = keywords["minItems"]?.double, Double(items.count) < minimum { found.append("\(path): fewer than \(Int(minimum)) items") }
        if let maximum = keywords["maxItems"]?.double, Double(items.count) > maximum { found.append("\(path): more than \(Int(maximum)) items") }
        if let schema = keywords["items"] {
            for (index, item) in items.enumerated() { found += problems(item, against: schema, at: "\(path)[\(index)]") }
        }
        return found
    }

    private func compositionProblems(_ value: JSONValue, _ keywords: [String: JSONValue], _ path: String) -> [String] {
        var found: [String] = []
        for schema in keywords["allOf"]?.array ?? [] { found += problems(value, against: schema, at: path) }
        if let options = keywords["anyOf"]?.array, !options.contains(where: { problems(value, against: $0, at: path).isEmpty }) {
            found.append("\(path): matches none of anyOf")
        }
        if let options = keywords["oneOf"]?.array {
            if let discriminator = keywords["discriminator"], let property = discriminator["propertyName"]?.string {
                // The discriminator names the one schema to check, so a failure says what is wrong with it.
                guard let tag = value[property]?.string else { return found + ["\(path): missing discriminator \(property)"] }
                guard let target = discriminator["mapping"]?[tag]?.string ?? options.compactMap({ $0["$ref"]?.string })
                    .first(where: { $0.hasSuffix("/" + tag) })
                else { return found + ["\(path): unknown \(property) \"\(tag)\""] }
                found += problems(value, against: .object(["$ref": .string(target)]), at: path)
            } else {
                let matches = options.filter { problems(value, against: $0, at: path).isEmpty }.count
                if matches != 1 { found.append("\(path): matches \(matches) schemas of oneOf, not exactly one") }
            }
        }
        return found
    }

    private static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        if let left = lhs.double, let right = rhs.double { return left == right }
        return lhs == rhs
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let bool): String(bool)
        case .integer(let integer): String(integer)
        case .number(let number): String(number)
        case .string(let text): "\"\(text.prefix(60))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
