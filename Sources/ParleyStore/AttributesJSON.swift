import Foundation
import ParleyCore

/// How both stores keep a string map (a conversation's or visitor's attributes) in a text column.
public enum AttributesJSON {
    /// The map in `text`; empty when there is none or it is unreadable. Read without `JSONDecoder`
    /// in the common case: every commit reads its conversation's row.
    public static func decode(_ text: String?) -> [String: String] {
        guard let text else { return [:] }
        if let map = ParleyJSON.stringMap(text) { return map }
        return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    /// The map as JSON with sorted keys.
    public static func encode(_ attributes: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(attributes)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
