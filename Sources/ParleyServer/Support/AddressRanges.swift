import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A set of IPv4 and IPv6 address ranges (`10.0.0.0/8`, `::1`, `fd00::/8`).
public struct AddressRanges: Sendable, Hashable {
    private struct Range: Hashable {
        var bytes: [UInt8]
        var prefix: Int
    }

    private let ranges: [Range]

    /// No range at all.
    public static let empty = AddressRanges(ranges: [])

    private init(ranges: [Range]) { self.ranges = ranges }

    /// Reads ranges such as `10.0.0.0/8`, `127.0.0.1`, `fd00::/8`.
    /// - Throws: ``Invalid`` naming the first entry that is not an address or range.
    public init(_ entries: [String]) throws {
        ranges = try entries.map { entry in
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let bytes = Self.bytes(of: parts[0]) else { throw Invalid(entry: entry) }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...bytes.count * 8).contains(prefix) else { throw Invalid(entry: entry) }
            return Range(bytes: bytes, prefix: prefix)
        }
    }

    /// An entry that is not an address or a range.
    public struct Invalid: Error, CustomStringConvertible {
        public var entry: String
        public var description: String { "not an address or range: \(entry) (use 10.0.0.0/8, 127.0.0.1, fd00::/8)" }
    }

    /// True when `address` is in one of the ranges.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return contains(bytes: bytes)
    }

    /// True when the 4 or 16 bytes of an address are in one of the ranges.
    func contains(bytes: [UInt8]) -> Bool {
        ranges.contains { range in
            guard range.bytes.count == bytes.count else { return false }
            let whole = range.prefix / 8, rest = range.prefix % 8
            if bytes[..<whole] != range.bytes[..<whole] { return false }
            if rest == 0 { return true }
            let mask = UInt8(0xFF << (8 - rest) & 0xFF)
            return bytes[whole] & mask == range.bytes[whole] & mask
        }
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address, or nil.
    static func bytes(of address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
