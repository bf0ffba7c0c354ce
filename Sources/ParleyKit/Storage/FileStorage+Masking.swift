import Foundation
import ParleyCore

extension FileStorage {
    private var maskingRulesURL: URL { directory.appendingPathComponent("masking.json") }

    /// The app's masking rules from `masking.json`, or nil when there is none yet.
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be decoded.
    public func loadMaskingRules() throws -> MaskingRules? {
        guard let data = FileManager.default.contents(atPath: maskingRulesURL.path) else { return nil }
        do {
            return try ParleyJSON.decode(MaskingRules.self, from: data)
        } catch {
            throw ParleyError.storage("masking.json is unreadable: \(error)")
        }
    }

    /// Replaces `masking.json` atomically (write, then rename). The rules are the app's settings,
    /// not the user's: they stay when the user signs out.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func saveMaskingRules(_ rules: MaskingRules) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try ParleyJSON.encode(rules).write(to: maskingRulesURL, options: .atomic)
        } catch {
            throw ParleyError.storage("cannot write masking.json: \(error)")
        }
    }
}
