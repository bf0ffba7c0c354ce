import Foundation
import ParleyCore

/// An email waiting in the store's outbox, with what it says: kept until it is sent or given up,
/// so an acknowledged request survives a restart and is retried.
public struct OutgoingMail: Sendable, Hashable {
    public var record: TranscriptEmail
    public var appID: AppID
    public var subject: String
    public var text: String
    public var html: String

    public init(record: TranscriptEmail, appID: AppID, subject: String, text: String, html: String) {
        self.record = record
        self.appID = appID
        self.subject = subject
        self.text = text
        self.html = html
    }
}

/// How a delivery attempt ended.
public enum MailAttempt: Sendable, Hashable {
    case sent
    /// Try again at `next`.
    case retry(next: Date, error: String)
    /// Give up.
    case failed(error: String)
}
