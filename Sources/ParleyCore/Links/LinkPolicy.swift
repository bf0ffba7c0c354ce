import Foundation

/// Where links in the chat go (Unblu's link policy, Cisco's page push): hosts an admin trusts open
/// inside the chat view; every other web link opens outside it (the system browser, through the
/// app) or not at all. One policy per app, read by the chat page and ParleyKit
/// (`GET /v1/link-policy`), set by admins (`PUT /v1/admin/apps/{app}/link-policy`).
///
/// ``decide(_:)`` is pure, so the chat page, ParleyKit and the tests agree on every URL; an app may
/// still override a decision (ParleyKit's `ChatBridge`).
public struct LinkPolicy: Hashable, Sendable, Codable {
    /// What happens to a web link whose host is not in ``insideHosts``.
    public enum OtherLinks: String, Hashable, Sendable, Codable {
        /// Opened outside the chat view (the app's browser; a new tab on a website). The default.
        case outside
        /// Not opened; the visitor is told so.
        case block
    }

    /// Hosts opened inside the chat view: `help.example.com` (that host only) or `*.example.com`
    /// (any host under it, not `example.com` itself). Lower case, at most 50.
    public var insideHosts: [String]
    public var otherLinks: OtherLinks
    /// Origins of websites that may embed the chat page in a frame (`https://www.example.com`);
    /// empty means any site may.
    public var embedOrigins: [String]

    public init(insideHosts: [String] = [], otherLinks: OtherLinks = .outside, embedOrigins: [String] = []) {
        self.insideHosts = insideHosts
        self.otherLinks = otherLinks
        self.embedOrigins = embedOrigins
    }

    /// No host inside, every link outside, embeddable anywhere: an app's policy until an admin sets one.
    public static let defaults = LinkPolicy()

    enum CodingKeys: String, CodingKey {
        case insideHosts = "inside_hosts", otherLinks = "other_links", embedOrigins = "embed_origins"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        insideHosts = try container.decodeIfPresent([String].self, forKey: .insideHosts) ?? []
        otherLinks = try container.decodeIfPresent(OtherLinks.self, forKey: .otherLinks) ?? .outside
        embedOrigins = try container.decodeIfPresent([String].self, forKey: .embedOrigins) ?? []
    }

    /// What to do with a link.
    public enum Decision: String, Hashable, Sendable, Codable {
        /// Open it inside the chat view.
        case openInside = "open_inside"
        /// Open it outside the chat view.
        case openOutside = "open_outside"
        /// Do not open it: the policy blocks it.
        case block
        /// Not a web link (`javascript:`, `data:`, `file:`, a malformed URL): never followed.
        case ignore
    }

    /// The decision for a link's text, the same everywhere it is made.
    public func decide(_ link: String) -> Decision {
        guard (try? Validation.webURL(link)) != nil, let host = URLComponents(string: link)?.host?.lowercased() else { return .ignore }
        if admitsInside(host: host) { return .openInside }
        return otherLinks == .block ? .block : .openOutside
    }

    /// True when `host` is one of ``insideHosts`` or under one of its `*.` entries.
    public func admitsInside(host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        return insideHosts.contains { pattern in
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst(1)) }
            return host == pattern
        }
    }

    /// Checks what an admin sends: host names and `*.` patterns (no schemes, paths or ports), and
    /// origins (`https://host[:port]`, nothing after).
    public func check() throws(Validation.Failure) {
        guard insideHosts.count <= 50 else { throw Validation.Failure(field: "inside_hosts", message: "at most 50 hosts") }
        for host in insideHosts {
            let name = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
            guard Self.isHostName(name), host == host.lowercased() else {
                throw Validation.Failure(field: "inside_hosts", message: "\(host.debugDescription) is not a lower-case host name or *.host pattern")
            }
        }
        guard embedOrigins.count <= 50 else { throw Validation.Failure(field: "embed_origins", message: "at most 50 origins") }
        for origin in embedOrigins {
            guard let components = URLComponents(string: origin), let scheme = components.scheme, scheme == "https" || scheme == "http",
                  let host = components.host, Self.isHostName(host.lowercased()), components.path.isEmpty, components.query == nil,
                  components.fragment == nil, components.user == nil, components.password == nil, origin == origin.lowercased()
            else {
                throw Validation.Failure(field: "embed_origins", message: "\(origin.debugDescription) is not an origin such as https://www.example.com")
            }
        }
    }

    /// Letters, digits, hyphens and dots, labels of 1–63, at most 253 in all; or `localhost`-like single labels.
    static func isHostName(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 253 else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}
