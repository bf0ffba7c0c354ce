import Foundation

/// What an app accepts as attachments, set by an admin (Cisco ECE's attachment limits, Unblu's
/// upload restrictions). The type is the one decided from the file's bytes (``FileType``).
public struct AttachmentPolicy: Hashable, Sendable, Codable {
    /// Whether visitors and agents may send files at all. Default true.
    public var isEnabled: Bool
    /// The largest file accepted, in bytes (1 to the server's own limit). Default 25 MB (26,214,400).
    public var maxBytes: Int64
    /// The types accepted: exact (`image/png`) or a family (`image/*`). Default
    /// ``defaultAllowedTypes``.
    public var allowedTypes: [String]
    /// Types refused even when allowed (`video/*` under an allowed `*/*`…). Default none.
    public var blockedTypes: [String]
    /// How many days files are kept: older ones are removed (their messages stay, saying the file
    /// is gone). 1 to 36,500; nil keeps them for ever. Default nil.
    public var retentionDays: Int?

    /// Common, safe types: raster images, PDF, plain text and CSV, office documents, zip, common
    /// audio and video. Not HTML, SVG or executables, which a browser or a system may run.
    public static let defaultAllowedTypes = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "image/heic",
        "application/pdf", "text/plain", "text/csv",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "application/zip", "audio/mpeg", "audio/mp4", "audio/ogg", "video/mp4", "video/quicktime",
    ]

    /// The default policy.
    public static let standard = AttachmentPolicy()

    /// Creates a policy; every default is stated on its property.
    /// - Parameters:
    ///   - isEnabled: whether files may be sent.
    ///   - maxBytes: the largest file.
    ///   - allowedTypes: the types accepted.
    ///   - blockedTypes: the types refused anyway.
    ///   - retentionDays: how long files are kept; nil for ever.
    public init(isEnabled: Bool = true, maxBytes: Int64 = 25 << 20, allowedTypes: [String] = AttachmentPolicy.defaultAllowedTypes,
                blockedTypes: [String] = [], retentionDays: Int? = nil) {
        self.retentionDays = retentionDays
        self.isEnabled = isEnabled
        self.maxBytes = maxBytes
        self.allowedTypes = allowedTypes
        self.blockedTypes = blockedTypes
    }

    /// Why a file is refused, if it is.
    public enum Refusal: Hashable, Sendable {
        /// Attachments are off for the app.
        case disabled
        /// Larger than ``maxBytes``.
        case tooLarge(limit: Int64)
        /// A file of no bytes.
        case empty
        /// A type the policy does not accept.
        case typeNotAllowed(String)

        /// What to tell the sender.
        public var message: String {
            switch self {
            case .disabled: "this app does not accept files"
            case .tooLarge(let limit): "a file may have at most \(Attachment.readableSize(limit)) (\(limit) bytes)"
            case .empty: "the file is empty"
            case .typeNotAllowed(let type): "files of type \(type) are not accepted"
            }
        }
    }

    /// Checks a file's size alone (before its bytes are read, from a declared length).
    /// - Parameter size: the size in bytes.
    /// - Returns: the refusal, or nil when the size is fine.
    public func refusal(size: Int64) -> Refusal? {
        if !isEnabled { return .disabled }
        if size == 0 { return .empty }
        if size > maxBytes { return .tooLarge(limit: maxBytes) }
        return nil
    }

    /// Checks a file's decided type and size.
    /// - Parameters:
    ///   - type: the type decided from the bytes.
    ///   - size: the size in bytes.
    /// - Returns: the refusal, or nil when the file is accepted.
    public func refusal(type: String, size: Int64) -> Refusal? {
        if let refusal = refusal(size: size) { return refusal }
        if blockedTypes.contains(where: { Self.matches($0, type) }) || !allowedTypes.contains(where: { Self.matches($0, type) }) {
            return .typeNotAllowed(type)
        }
        return nil
    }

    /// Whether a pattern (`image/png`, `image/*`, `*/*`) covers a type.
    static func matches(_ pattern: String, _ type: String) -> Bool {
        let pattern = pattern.lowercased(), type = type.lowercased()
        if pattern == "*/*" || pattern == type { return true }
        if pattern.hasSuffix("/*") { return type.hasPrefix(pattern.dropLast()) }
        return false
    }

    /// Checks the policy's shape.
    /// - Parameter serverLimit: the server's own largest file (parleyd `--max-attachment-bytes`).
    /// - Throws: ``Validation/Failure`` naming the field.
    public func check(serverLimit: Int64) throws(Validation.Failure) {
        guard (1...serverLimit).contains(maxBytes) else {
            throw Validation.Failure(field: "max_bytes", message: "1 to \(serverLimit) (this server's limit)")
        }
        if let retentionDays, !(1...36_500).contains(retentionDays) {
            throw Validation.Failure(field: "retention_days", message: "1 to 36500 days, or null to keep files")
        }
        for (field, list) in [("allowed_types", allowedTypes), ("blocked_types", blockedTypes)] {
            guard list.count <= 100 else { throw Validation.Failure(field: field, message: "at most 100 types") }
            for pattern in list where !Self.isWellFormedPattern(pattern) {
                throw Validation.Failure(field: field, message: "\(pattern) is not a type such as image/png, image/* or */*")
            }
        }
    }

    static func isWellFormedPattern(_ pattern: String) -> Bool {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, pattern.utf8.count <= 127 else { return false }
        let token: (Substring) -> Bool = { part in
            !part.isEmpty && part.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || "!#$&-^_.+".utf8.contains($0) }
        }
        if parts[0] == "*" { return parts[1] == "*" }
        return token(parts[0]) && (parts[1] == "*" || token(parts[1]))
    }

    enum CodingKeys: String, CodingKey {
        case isEnabled = "enabled", maxBytes = "max_bytes", allowedTypes = "allowed_types", blockedTypes = "blocked_types"
        case retentionDays = "retention_days"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        isEnabled = try container.decodeIfPresent(Bool.self, forKey: .isEnabled) ?? true
        maxBytes = try container.decodeIfPresent(Int64.self, forKey: .maxBytes) ?? (25 << 20)
        allowedTypes = try container.decodeIfPresent([String].self, forKey: .allowedTypes) ?? Self.defaultAllowedTypes
        blockedTypes = try container.decodeIfPresent([String].self, forKey: .blockedTypes) ?? []
        retentionDays = try container.decodeIfPresent(Int.self, forKey: .retentionDays)
    }
}
