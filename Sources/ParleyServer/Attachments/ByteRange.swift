import Foundation

/// The one byte range a `Range` header asks for (RFC 9110 §14.2), so that a download resumes.
///
/// `bytes=0-99`, `bytes=100-` and `bytes=-100` (the last 100) are served; several ranges at once,
/// other units or malformed headers are ignored and the whole file is sent, as the RFC allows.
enum ByteRange: Equatable {
    /// Send the whole file (200).
    case whole
    /// Send these bytes (206 with `Content-Range`).
    case partial(Range<Int64>)
    /// The range starts past the end (416 with `Content-Range: bytes */size`).
    case unsatisfiable

    /// What to send of a file of `size` bytes for a `Range` header.
    static func parse(_ header: String?, size: Int64) -> ByteRange {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0].isEmpty ? nil : Int64(parts[0]), last = parts[1].isEmpty ? nil : Int64(parts[1])
        if !parts[1].isEmpty && last == nil { return .whole }
        switch (parts[0].isEmpty, parts[1].isEmpty) {
        case (true, true):
            return .whole
        case (true, false):
            guard let count = last, count >= 0 else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - count)..<size)
        case (false, _):
            guard let start = first, start >= 0 else { return .whole }
            if let end = last, end < start { return .whole }
            guard start < size else { return .unsatisfiable }
            let end = min(last.map { $0 + 1 } ?? size, size)
            return .partial(start..<end)
        }
    }
}
