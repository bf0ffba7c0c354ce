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

    /// The profile after a verified sign-in: the fields given replace the stored ones, attributes merge.
    /// - Throws: ``StoreError/invalidInput(_:)`` past ``Limits/maxAttributes``.
    public static func apply(_ profile: VisitorProfile, to visitor: inout Visitor) throws {
        if let name = profile.name { visitor.name = name }
        if let email = profile.email { visitor.email = email }
        if let attributes = profile.attributes { visitor.attributes.merge(attributes) { _, new in new } }
        if visitor.attributes.count > Limits.maxAttributes {
            throw StoreError.invalidInput("attributes: a visitor has at most \(Limits.maxAttributes) (\(visitor.attributes.count) with these)")
        }
    }
}
