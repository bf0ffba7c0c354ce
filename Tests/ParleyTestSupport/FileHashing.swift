import ParleyCore
import Crypto
import Foundation

/// SHA-256 of test data and files, lowercase hex (what attachments carry).
public enum SHA256Hex {
    /// The SHA-256 of bytes.
    public static func of(_ data: Data) -> String {
        SHA256.hash(data: data).hexString
    }

    /// The SHA-256 of a file, read in pieces (a large file is never held whole).
    public static func of(file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
