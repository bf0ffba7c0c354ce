import Foundation
import NIOCore
import NIOPosix

/// Where parleyd may send requests of its own (auth services, JWKS, webhooks, push): public
/// addresses over HTTPS by default, so an admin's URL cannot make the server reach its own
/// network (SSRF). Tests and private deployments turn the checks off explicitly.
public struct OutboundPolicy: Sendable, Hashable {
    /// Allow loopback, private, link-local and other non-public addresses. Default false
    /// (`parleyd --allow-private-outbound`).
    public var allowsPrivateAddresses = false
    /// Allow plain `http://`. Default false; true together with private addresses in tests.
    public var allowsPlainHTTP = false
    /// How long a request may take, connect to last byte. Default 5 s.
    public var timeout: TimeInterval = 5
    /// The largest response body read. Default 1 MiB.
    public var maximumResponseBytes = 1 << 20

    public init() {}

    /// For tests on loopback: private addresses and plain HTTP allowed.
    public static var loopbackForTests: OutboundPolicy {
        var policy = OutboundPolicy()
        policy.allowsPrivateAddresses = true
        policy.allowsPlainHTTP = true
        return policy
    }

    /// Addresses that are not the public internet (RFC 6890 and friends): loopback, private,
    /// carrier-grade NAT, link-local (cloud metadata at 169.254.169.254), multicast, reserved,
    /// documentation, unique-local and IPv4-mapped/translated IPv6.
    static let nonPublic = try! AddressRanges([  // literals below; a typo fails every test at once
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8",
    ])

    /// Checks a URL before a request: its scheme, and every address its host resolves to.
    /// - Throws: ``OutboundError`` naming what is refused.
    public func check(_ url: URL) async throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || (scheme == "http" && allowsPlainHTTP) else {
            throw OutboundError("use an https:// URL")
        }
        guard let host = url.host, !host.isEmpty else { throw OutboundError("the URL has no host") }
        if allowsPrivateAddresses { return }
        let addresses = try await Self.resolve(host, port: url.port ?? (scheme == "https" ? 443 : 80))
        guard !addresses.isEmpty else { throw OutboundError("\(host) does not resolve") }
        for address in addresses where Self.nonPublic.contains(bytes: address) {
            throw OutboundError("\(host) points at a private or reserved address; outbound requests go to public addresses only")
        }
    }

    /// Checks a URL like ``check(_:)`` and returns the address to connect to: the first checked
    /// address of its host, so the request goes where the check looked and a DNS answer that
    /// changes in between (rebinding) is never used. Nil when there is nothing to pin: the host is
    /// an address itself, or private addresses are allowed (tests, private deployments).
    /// - Throws: ``OutboundError`` naming what is refused.
    public func checkedAddress(_ url: URL) async throws -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || (scheme == "http" && allowsPlainHTTP) else {
            throw OutboundError("use an https:// URL")
        }
        guard let host = url.host, !host.isEmpty else { throw OutboundError("the URL has no host") }
        if allowsPrivateAddresses { return nil }
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = try await Self.resolve(host, port: url.port ?? (scheme == "https" ? 443 : 80))
        guard let first = addresses.first else { throw OutboundError("\(host) does not resolve") }
        for address in addresses where Self.nonPublic.contains(bytes: address) {
            throw OutboundError("\(host) points at a private or reserved address; outbound requests go to public addresses only")
        }
        return AddressRanges.bytes(of: literal) != nil ? nil : Self.text(of: first)
    }

    /// An address's text (`203.0.113.7`, `2001:db8::1`).
    static func text(of bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [String] = []
        for index in stride(from: 0, to: bytes.count, by: 2) { groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16)) }
        return groups.joined(separator: ":")
    }

    /// The 4- or 16-byte addresses of `host` (a literal address resolves to itself).
    static func resolve(_ host: String, port: Int) async throws -> [[UInt8]] {
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let bytes = AddressRanges.bytes(of: literal) { return [bytes] }
        return try await resolveAll(literal, port: port)
    }

    /// Every address of `host`, from getaddrinfo. It blocks, so it runs on NIO's thread pool, not
    /// on a cooperative thread.
    private static func resolveAll(_ host: String, port: Int) async throws -> [[UInt8]] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
                throw OutboundError("\(host) does not resolve")
            }
            defer { freeaddrinfo(first) }
            var addresses: [[UInt8]] = []
            var node: UnsafeMutablePointer<addrinfo>? = first
            while let current = node {
                if let address = current.pointee.ai_addr {
                    switch Int32(address.pointee.sa_family) {
                    case AF_INET:
                        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                            var raw = v4.pointee.sin_addr
                            addresses.append(withUnsafeBytes(of: &raw) { Array($0) })
                        }
                    case AF_INET6:
                        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                            var raw = v6.pointee.sin6_addr
                            addresses.append(withUnsafeBytes(of: &raw) { Array($0) })
                        }
                    default:
                        break
                    }
                }
                node = current.pointee.ai_next
            }
            return addresses
        }
    }
}

/// An outbound request that was refused or failed.
public struct OutboundError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
