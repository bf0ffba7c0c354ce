import Foundation

/// Address ranges whose `X-Forwarded-For` parleyd believes: its own reverse proxies. Anything else
/// could write that header itself, so without a trusted proxy the client is the socket's peer.
public struct TrustedProxies: Sendable, Hashable {
    private let ranges: AddressRanges

    /// None: `X-Forwarded-For` is ignored. The default.
    public static let none = TrustedProxies(ranges: .empty)

    private init(ranges: AddressRanges) { self.ranges = ranges }

    /// Reads ranges such as `10.0.0.0/8`, `127.0.0.1`, `fd00::/8`.
    /// - Throws: ``AddressRanges/Invalid`` naming the first entry that is not an address or range.
    public init(_ entries: [String]) throws { ranges = try AddressRanges(entries) }

    /// True when `address` is a trusted proxy's.
    public func contains(_ address: String) -> Bool { ranges.contains(address) }

    /// The client's address: the peer, unless the peer is a trusted proxy; then the right-most
    /// address of `X-Forwarded-For` that is not itself a trusted proxy (entries further left were
    /// written by whoever sent the request and prove nothing).
    public func client(peer: String, forwardedFor: String?) -> String {
        guard contains(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for hop in hops.reversed() where !contains(hop) {
            return AddressRanges.bytes(of: hop) != nil ? hop : peer
        }
        return hops.first ?? peer
    }
}
