import Foundation

/// A file's type decided from its first bytes (magic numbers), checked against its name and the
/// type its sender declared. The name and the declared type never decide alone: a `.png` that is
/// a PDF inside is refused, as is an executable called `invoice.pdf`.
public enum FileType {
    /// How many first bytes ``sniff(_:)`` looks at.
    public static let sniffLength = 512

    /// The generic type: bytes that match no known type.
    public static let unknown = "application/octet-stream"

    /// The type a file's first bytes show, or ``unknown``.
    /// - Parameter head: the file's first bytes (up to ``sniffLength``; fewer for a small file).
    /// - Returns: a MIME type such as `image/png`.
    public static func sniff(_ head: some Collection<UInt8>) -> String {
        let bytes = Array(head.prefix(sniffLength))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return "image/gif" }
        if starts(ascii("RIFF")) && starts(ascii("WEBP"), at: 8) { return "image/webp" }
        if starts(ascii("%PDF-")) { return "application/pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return "application/zip" }
        if starts(ascii("OggS")) { return "audio/ogg" }
        if starts(ascii("ID3")) || (bytes.count >= 2 && bytes[0] == 0xFF && [0xFB, 0xF3, 0xF2].contains(bytes[1])) { return "audio/mpeg" }
        if starts(ascii("ftyp"), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "mif1", "msf1", "heim", "heis": return "image/heic"
            case "qt  ": return "video/quicktime"
            case "M4A ", "M4B ": return "audio/mp4"
            default: return "video/mp4"
            }
        }
        // Refused by the default policy, but named, so that the refusal says what the file is.
        if starts(ascii("MZ")) { return "application/x-msdownload" }
        if starts([0x7F, 0x45, 0x4C, 0x46]) { return "application/x-executable" }
        if starts([0xCF, 0xFA, 0xED, 0xFE]) || starts([0xCE, 0xFA, 0xED, 0xFE]) || starts([0xCA, 0xFE, 0xBA, 0xBE]) { return "application/x-mach-binary" }
        if starts([0x1F, 0x8B]) { return "application/gzip" }
        if starts(ascii("7z")) && starts([0xBC, 0xAF, 0x27, 0x1C], at: 2) { return "application/x-7z-compressed" }
        if starts(ascii("Rar!")) { return "application/vnd.rar" }
        if let markup = markupType(bytes) { return markup }
        if isText(bytes) { return "text/plain" }
        return unknown
    }

    /// HTML and SVG (which a browser runs), told from text by their opening tags.
    private static func markupType(_ bytes: [UInt8]) -> String? {
        var text = String(decoding: bytes, as: UTF8.self).lowercased()
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        text = String(text.drop(while: { $0.isWhitespace }))
        if text.hasPrefix("<svg") || (text.hasPrefix("<?xml") && text.contains("<svg")) { return "image/svg+xml" }
        for tag in ["<!doctype html", "<html", "<head", "<body", "<script", "<iframe"] where text.hasPrefix(tag) {
            return "text/html"
        }
        return nil
    }

    /// UTF-8 (a sequence cut at the end of the sample is fine) without NUL or control bytes
    /// other than tab, newlines and form feed.
    private static func isText(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        if bytes.contains(where: { $0 < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains($0) || $0 == 0x7F }) { return false }
        // Drop up to 3 bytes of a sequence the sample may have cut, then require valid UTF-8.
        for cut in 0...min(3, bytes.count - 1) {
            if String(validating: bytes.dropLast(cut), as: UTF8.self) != nil { return true }
        }
        return false
    }

    /// The type a file name's extension stands for, when it is one of the known ones.
    /// - Parameter name: a file name such as `photo.JPG`.
    /// - Returns: the type, or nil for no or an unknown extension.
    public static func type(ofName name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return byExtension[name[name.index(after: dot)...].lowercased()]
    }

    static let byExtension: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heic", "pdf": "application/pdf", "txt": "text/plain", "log": "text/plain",
        "md": "text/plain", "csv": "text/csv", "zip": "application/zip",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "ogg": "audio/ogg", "oga": "audio/ogg", "mp4": "video/mp4", "m4v": "video/mp4",
        "mov": "video/quicktime", "exe": "application/x-msdownload", "dll": "application/x-msdownload",
        "html": "text/html", "htm": "text/html", "svg": "image/svg+xml", "gz": "application/gzip", "7z": "application/x-7z-compressed",
        "rar": "application/vnd.rar",
    ]

    /// Types whose bytes look like another, more general type: the name may say which one it is.
    /// An OOXML document is a zip; CSV is text.
    static let refinements: [String: Set<String>] = [
        "application/zip": [
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ],
        "text/plain": ["text/csv"],
        "video/mp4": ["audio/mp4"],
    ]

    /// Why the name or the declared type disagree with the bytes.
    public struct Mismatch: Error, Hashable, Sendable {
        /// What the bytes are.
        public var sniffed: String
        /// What the name or the declared type said.
        public var claimed: String
        /// Where the claim came from: `name` or `content_type`.
        public var source: String

        /// What to tell the sender.
        public var message: String { "the file's content is \(sniffed), but its \(source == "name" ? "name says" : "declared type is") \(claimed)" }
    }

    /// The type of a file: its bytes' type, refined by its name where the bytes allow several
    /// (a zip named `.docx`); refused when the name or the declared type says something else.
    /// - Parameters:
    ///   - head: the file's first bytes.
    ///   - name: the file's name.
    ///   - declared: the type the sender declared (`Content-Type`); nil, empty,
    ///     `application/octet-stream` and `application/x-www-form-urlencoded` (what `curl
    ///     --data-binary` sends for any file) declare nothing.
    /// - Returns: the file's type.
    /// - Throws: ``Mismatch`` when the name or the declared type contradicts the bytes.
    public static func decide(head: some Collection<UInt8>, name: String, declared: String?) throws(Mismatch) -> String {
        let sniffed = sniff(head)
        var decided = sniffed
        if let named = type(ofName: name), named != sniffed {
            guard refinements[sniffed]?.contains(named) == true else { throw Mismatch(sniffed: sniffed, claimed: named, source: "name") }
            decided = named
        }
        let claim = declared.map { $0.split(separator: ";").first.map(String.init) ?? $0 }?
            .trimmingCharacters(in: .whitespaces).lowercased()
        // A claim of the general type (`text/plain` for a CSV) is no contradiction.
        if let claim, !claim.isEmpty, claim != unknown, claim != "application/x-www-form-urlencoded", claim != decided, claim != sniffed,
           aliases[claim] != decided {
            guard refinements[decided]?.contains(claim) == true || refinements[sniffed]?.contains(claim) == true && decided == sniffed else {
                throw Mismatch(sniffed: decided, claimed: claim, source: "content_type")
            }
            decided = claim
        }
        return decided
    }

    /// Names some senders use for a type (browsers say `image/jpg`, old tools `audio/mp3`).
    static let aliases: [String: String] = [
        "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "audio/mp3": "audio/mpeg", "audio/x-m4a": "audio/mp4",
        "application/x-zip-compressed": "application/zip", "image/heif": "image/heic",
    ]
}
