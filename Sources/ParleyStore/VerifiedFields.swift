import Foundation
import ParleyCore

/// The stored form of ``Visitor/verifiedFields``: a JSON array of field names, sorted.
public enum VerifiedFields {
    public static func encode(_ fields: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(Array(Set(fields)).sorted())) ?? Data("[]".utf8), as: UTF8.self)
    }

    public static func decode(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}
