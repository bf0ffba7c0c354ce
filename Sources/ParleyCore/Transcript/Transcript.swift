import Foundation

/// A conversation's readable history, built from its events: messages and notices of joins,
/// transfers and ends, oldest first. Render it with ``plainText(options:)`` or ``html(options:)``.
///
/// Internal notes never appear: they are not conversation events (docs/decisions/0003), and a
/// transcript is made from events alone. Read markers are left out too.
public struct Transcript: Hashable, Sendable {
    /// One line of a transcript.
    public struct Line: Hashable, Sendable {
        /// What a line says.
        public enum Content: Hashable, Sendable {
            /// A message and who wrote it.
            case message(author: Participant, text: String)
            /// Something that happened, in words (`Ann joined`).
            case notice(String)
        }

        public var time: Date
        public var content: Content

        /// Creates a line.
        public init(time: Date, content: Content) {
            self.time = time
            self.content = content
        }
    }

    public var conversation: Conversation
    public var lines: [Line]

    /// Builds the transcript of `conversation` from its events (in any order; sorted by seq).
    public init(conversation: Conversation, events: [ConversationEvent]) {
        self.conversation = conversation
        self.lines = events.sorted { $0.seq < $1.seq }.compactMap(Transcript.line(for:))
    }

    /// How a participant is named in a transcript: their display name, else `Visitor`, `Agent` or `Parley`.
    public static func displayName(of participant: Participant) -> String {
        if let name = participant.name?.trimmingWhitespace(), !name.isEmpty { return name }
        switch participant.role {
        case .visitor: return "Visitor"
        case .agent: return "Agent"
        case .system: return "Parley"
        }
    }

    static func line(for event: ConversationEvent) -> Line? {
        let notice: String
        switch event.body {
        case .message(let message):
            guard let file = message.attachment else {
                return Line(time: event.createdAt, content: .message(author: event.author, text: message.text))
            }
            // A transcript lists a file by name and size; its bytes stay on the server.
            let listing = "[file: \(file.name), \(file.readableSize)]"
            return Line(time: event.createdAt, content: .message(
                author: event.author, text: message.text.isEmpty ? listing : listing + "\n" + message.text))
        case .read, .unknown:
            return nil
        case .pagePushed(let page):
            // The address in full: a transcript is read later, away from the chat's cards.
            return Line(time: event.createdAt, content: .message(author: event.author, text: "[page: \(page.title)] \(page.url)"))
        case .participantJoined(let joined):
            notice = "\(displayName(of: joined.participant)) joined"
        case .participantLeft(let left):
            let name = displayName(of: left.participant)
            switch left.reason {
            case .ended: notice = "\(name) left"
            case .offline: notice = "\(name) went offline; the conversation went back to the queue"
            case .transferred: notice = "\(name) handed the conversation over"
            }
        case .stateChanged(let change):
            switch change.reason {
            case .opened: notice = "Conversation started"
            case .assigned: return nil  // the agent's "joined" line says it
            case .endedByVisitor: notice = "\(displayName(of: event.author)) ended the conversation"
            case .endedByAgent: notice = "\(displayName(of: event.author)) ended the conversation"
            case .cancelled: notice = "The visitor cancelled while waiting"
            case .reopened: notice = "The conversation was reopened"
            case .requeued: notice = "The conversation went back to the queue"
            case .transferred: notice = change.to == .queued ? "Transferred to another queue" : "Transferred to another agent"
            case .expired: notice = "The callback request expired unconfirmed"
            }
        case .callback(let change):
            guard let text = callbackNotice(change) else { return nil }
            notice = text
        }
        return Line(time: event.createdAt, content: .notice(notice))
    }
}

extension Transcript {
    /// A callback request's change as a transcript line; nil for what the state lines already say.
    static func callbackNotice(_ change: CallbackChange) -> String? {
        let request = change.callback
        switch change.action {
        case .requested:
            let what = switch request.kind {
            case .callMe: "a call" + (request.phone.map { " to \($0)" } ?? "")
            case .iWillCall: "a number to call"
            case .notifyAndChat: "a chat when an agent is free"
            }
            return "Callback requested: \(what)"
        case .offered: return "An agent was ready; the visitor was asked to confirm"
        case .confirmed: return "The visitor confirmed the callback"
        case .snoozed: return "The visitor asked to be asked again later"
        case .requeued: return "The offer went unconfirmed; the request went back to the queue"
        case .due: return nil
        case .cancelled, .expired: return nil  // the state line says it
        case .completed: return "Callback done" + (request.outcome.map { ": \($0.rawValue.replacingOccurrences(of: "_", with: " "))" } ?? "")
        case .rescheduled: return "Callback to be tried again" + (request.outcome.map { " (\($0.rawValue.replacingOccurrences(of: "_", with: " ")))" } ?? "")
        }
    }

    /// How a transcript is rendered.
    public struct Options: Sendable {
        /// The zone times are shown in. Default UTC.
        public var timeZone: TimeZone
        /// The document's heading. Default "Conversation transcript".
        public var title: String
        /// The HTML document's language tag. Default "en".
        public var language: String

        /// Options with the defaults above, overridden where given.
        public init(timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!, title: String = "Conversation transcript", language: String = "en") {
            self.timeZone = timeZone
            self.title = title
            self.language = language
        }
    }

    /// `2026-03-29 14:05` on the wall clock of `zone`.
    static func format(_ date: Date, in zone: TimeZone) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let wall = seconds + zone.secondsFromGMT(for: date)
        let day = wall.floorDivided(by: 86_400)
        let minute = (wall - day * 86_400) / 60
        let hour = minute / 60, minutes = minute % 60
        return "\(LocalDate(daysSinceEpoch: day)) \(hour < 10 ? "0" : "")\(hour):\(minutes < 10 ? "0" : "")\(minutes)"
    }

    /// The zone's name for headers: its identifier, such as `Europe/Berlin`.
    static func zoneName(_ zone: TimeZone) -> String { zone.identifier }
}
