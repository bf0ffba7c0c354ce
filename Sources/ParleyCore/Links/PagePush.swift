import Foundation

/// An agent showed the visitor a web page (Cisco ECE's page push): a card with the page's title
/// that opens it, under the app's ``LinkPolicy``. Stored as a `page_pushed` event, in order with
/// the messages, so a reconnecting client resumes it like any other event.
///
/// `{"type": "page_pushed", "client_message_id": "…", "url": "https://help.example.com/returns", "title": "Returns"}`
public struct PagePush: Hashable, Sendable, Codable {
    /// The id the agent's client gave the push; pushing it again is idempotent, like a message.
    public var clientMessageID: String
    /// An absolute `http` or `https` URL (``Validation/webURL(_:field:)``).
    public var url: String
    /// What the card says, one line.
    public var title: String

    public init(clientMessageID: String, url: String, title: String) {
        self.clientMessageID = clientMessageID
        self.url = url
        self.title = title
    }

    enum CodingKeys: String, CodingKey { case clientMessageID = "client_message_id", url, title }
}

/// `POST /v1/conversations/{id}/pages`: the assigned agent pushes a page, with the fields the
/// event will carry. Answered like a message (``SendMessageResponse``): 201 when stored now, 200
/// for a resend of the same `client_message_id`.
public typealias PushPageRequest = PagePush

extension PagePush {
    /// Checks the id, the URL (``Validation/webURL(_:field:)``) and the title (one line, at most
    /// ``Limits/maxPageTitleLength`` characters).
    public func check() throws(Validation.Failure) {
        try Validation.clientMessageID(clientMessageID)
        try Validation.webURL(url)
        try Validation.shortText(title, field: "title", maxLength: Limits.maxPageTitleLength, required: true)
    }
}

extension Validation {
    /// An absolute `http` or `https` URL with a host, at most ``Limits/maxURLLength`` characters,
    /// without spaces or control characters, and without a user name or password: a link like
    /// `https://bank.example@evil.example/` reads as one host and goes to another.
    public static func webURL(_ text: String, field: String = "url") throws(Failure) {
        guard !text.isEmpty else { throw Failure(field: field, message: "is required") }
        guard text.count <= Limits.maxURLLength else { throw Failure(field: field, message: "at most \(Limits.maxURLLength) characters") }
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            throw Failure(field: field, message: "must not contain spaces or control characters")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http" else {
            throw Failure(field: field, message: "must be an absolute http or https URL")
        }
        guard let host = components.host, !host.isEmpty else { throw Failure(field: field, message: "must name a host") }
        guard components.user == nil, components.password == nil else {
            throw Failure(field: field, message: "must not carry a user name or password")
        }
    }
}
