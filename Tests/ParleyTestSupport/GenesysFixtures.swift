import Foundation

/// Genesys Mobile Services' own dialog examples (`Tests/ParleyCoreTests/GenesysFixtures/`, taken
/// from the GMS documentation), and the shape of a JSON value to compare ours with them by keys.
public enum GenesysFixtures {
    static var folder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ParleyCoreTests/GenesysFixtures")
    }

    /// The example GMS answers for `action` (a fixture's file name without `.json`).
    /// - Throws: ``TestFailure`` when there is no such fixture or it is not a JSON object.
    public static func example(_ action: String) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.appendingPathComponent("\(action).json"))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestFailure("\(action).json is not a JSON object")
        }
        return object
    }

    /// The keys of a JSON value, with their paths (array items merged), so shapes compare.
    /// - Parameters:
    ///   - value: a value from `JSONSerialization`.
    ///   - path: the path of `value` itself (empty at the top).
    public static func shape(_ value: Any, path: String = "") -> Set<String> {
        if let object = value as? [String: Any] {
            return object.reduce(into: Set<String>()) { keys, member in
                keys.insert(path + "/" + member.key)
                keys.formUnion(shape(member.value, path: path + "/" + member.key))
            }
        }
        if let array = value as? [Any] { return array.reduce(into: Set<String>()) { $0.formUnion(shape($1, path: path + "[]")) } }
        return []
    }
}
