import Foundation

/// An email as Parley sends it: a `multipart/alternative` message with a plain-text and an HTML
/// part, both UTF-8 and base64-encoded, every header that carries user text RFC 2047-encoded (so no
/// CR or LF from a subject or a name can ever start a header of its own).
struct MailMessage: Sendable, Hashable {
    /// `Parley Support <support@example.com>`: the display name is optional.
    struct Address: Sendable, Hashable {
        var name: String?
        /// Already checked (``EmailAddress/normalize(_:)``): ASCII, no spaces or angle brackets.
        var email: String
    }

    var from: Address
    var to: Address
    var subject: String
    var text: String
    var html: String
    var date: Date
    /// `<random@domain>`, unique per message.
    var messageID: String

    /// The whole message, CRLF line endings, ready for SMTP's DATA (before dot-stuffing).
    func rendered(boundary: String = "parley-" + UUID().uuidString.lowercased()) -> String {
        var lines = [
            "From: \(Self.header(from))",
            "To: \(Self.header(to))",
            "Subject: \(Self.encodedWord(subject))",
            "Date: \(Self.rfc5322Date(date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "Auto-Submitted: auto-generated",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += ["--\(boundary)", "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""]
            lines += Self.base64Lines(body)
        }
        lines += ["--\(boundary)--", ""]
        return lines.joined(separator: "\r\n")
    }

    static func header(_ address: Address) -> String {
        guard let name = address.name, !name.isEmpty else { return "<\(address.email)>" }
        return "\(encodedWord(name)) <\(address.email)>"
    }

    /// RFC 2047 `=?UTF-8?B?…?=` words of at most 75 characters, split between characters.
    static func encodedWord(_ text: String) -> String {
        var words: [String] = []
        var chunk = ""
        for character in text {
            if (chunk + String(character)).utf8.count > 45 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty || words.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?\(Data($0.utf8).base64EncodedString())?=" }.joined(separator: "\r\n ")
    }

    /// Base64 in lines of 76 characters (RFC 2045).
    static func base64Lines(_ text: String) -> [String] {
        let encoded = Data(text.utf8).base64EncodedString()
        return stride(from: 0, to: encoded.count, by: 76).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return String(encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
        }
    }

    /// `Sun, 22 Nov 2026 14:05:09 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }
}
