import Foundation

/// The kind of an attachment's id (`att_…`).
public enum AttachmentKind: IdentifierKind { public static let prefix = "att" }
/// An attachment's id.
public typealias AttachmentID = Identifier<AttachmentKind>

/// A file in a conversation: what a message event carries about it (the bytes are downloaded
/// apart, from `GET /v1/conversations/{id}/attachments/{attachment_id}`).
public struct Attachment: Hashable, Sendable, Codable {
    /// The attachment's id, unique on the server.
    public var id: AttachmentID
    /// The file's name as the sender gave it (1 to 255 characters, no path).
    public var name: String
    /// The file's type as the server decided it from the file's first bytes (`image/png`…).
    public var contentType: String
    /// The file's size in bytes (at least 1).
    public var size: Int64
    /// The SHA-256 of the file's bytes, lowercase hex: the receiver can check what it downloaded.
    public var sha256: String

    /// Creates an attachment description.
    /// - Parameters:
    ///   - id: the attachment's id.
    ///   - name: the file's name.
    ///   - contentType: the decided type.
    ///   - size: the size in bytes.
    ///   - sha256: the SHA-256 of the bytes, lowercase hex.
    public init(id: AttachmentID, name: String, contentType: String, size: Int64, sha256: String) {
        self.id = id
        self.name = name
        self.contentType = contentType
        self.size = size
        self.sha256 = sha256
    }

    /// True for the image types shown inline (raster only: an SVG can carry script).
    public var isPreviewableImage: Bool {
        ["image/png", "image/jpeg", "image/gif", "image/webp"].contains(contentType)
    }

    /// The size for people: `512 B`, `12.3 KB`, `4.5 MB` (decimal units, as file managers show).
    public var readableSize: String { Self.readableSize(size) }

    /// A byte count for people, in decimal units.
    /// - Parameter bytes: the count.
    /// - Returns: `512 B`, `12.3 KB`, `4.5 MB` or `1.2 GB`.
    public static func readableSize(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }

    enum CodingKeys: String, CodingKey {
        case id, name, contentType = "content_type", size, sha256
    }
}
