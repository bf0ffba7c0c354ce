import Foundation
import ParleyCore

/// Where transcripts are emailed from: an SMTP server (`--smtp`) and the sender (`--mail-from`).
public struct SMTPConfiguration: Sendable, Hashable {
    /// How the connection is protected.
    public enum Security: String, Sendable, Hashable {
        /// Plain SMTP, for a relay on this machine or a private network (`smtp://`). No password is
        /// ever sent over it.
        case none
        /// TLS from the first byte, usually port 465 (`smtps://`).
        case tls
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// The sender's address.
    public var fromEmail: String
    /// The sender's display name ("Acme Support").
    public var fromName: String?
    /// How long one delivery attempt may take. Default 30 s.
    public var timeout: Duration = .seconds(30)

    public init(host: String, port: Int, security: Security, username: String? = nil, password: String? = nil,
                fromEmail: String, fromName: String? = nil) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.fromEmail = fromEmail
        self.fromName = fromName
    }

    /// Reads `smtp://[user:password@]host[:port]` or `smtps://…` (ports default to 25 and 465) and
    /// the sender, `Name <address>` or a bare address.
    /// - Throws: a message naming what is wrong; a password over plain `smtp://` is refused.
    public init(url text: String, from sender: String) throws {
        guard let url = URLComponents(string: text), let scheme = url.scheme, let host = url.host, !host.isEmpty else {
            throw SMTPConfigurationError("--smtp: expected smtp://[user:password@]host[:port] or smtps://…")
        }
        switch scheme {
        case "smtp": security = .none
        case "smtps": security = .tls
        default: throw SMTPConfigurationError("--smtp: the scheme is smtp or smtps, not \(scheme)")
        }
        self.host = host
        port = url.port ?? (security == .tls ? 465 : 25)
        username = url.user?.removingPercentEncoding
        password = url.password?.removingPercentEncoding
        if password != nil && security == .none {
            throw SMTPConfigurationError("--smtp: a password is only sent over smtps:// (TLS)")
        }
        var name: String?
        var address = sender.trimmingCharacters(in: .whitespaces)
        if let open = address.lastIndex(of: "<"), address.hasSuffix(">") {
            name = address[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            address = String(address[address.index(after: open)..<address.index(before: address.endIndex)])
        }
        guard let email = EmailAddress.normalize(address) else {
            throw SMTPConfigurationError("--mail-from: \(sender) is not an email address")
        }
        fromEmail = email
        fromName = name?.isEmpty == false ? name : nil
    }
}

struct SMTPConfigurationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
