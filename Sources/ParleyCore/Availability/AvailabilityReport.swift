import Foundation

/// What the SDK asks before starting a chat: can a visitor be served now, and how long is the wait?
///
/// On the wire: `{"status": "open", "estimated_wait_seconds": 90}`,
/// `{"status": "closed", "next_opening": "2026-03-30T07:00:00.000Z"}` or `{"status": "no_agent_online"}`.
public struct AvailabilityReport: Hashable, Sendable, Codable {
    /// Whether a chat can start.
    public enum Status: Hashable, Sendable {
        /// Within business hours with an agent online: start the chat.
        case open
        /// Outside business hours; the next opening when known. Show the unavailable form.
        case closed(nextOpening: Date?)
        /// Within business hours but no agent is online. Show the unavailable form.
        case noAgentOnline
    }

    public var status: Status
    /// The expected wait in the queue, in seconds, when open and history allows an estimate (see ``WaitEstimator``).
    public var estimatedWaitSeconds: Int?

    /// Creates a report.
    public init(status: Status, estimatedWaitSeconds: Int? = nil) {
        self.status = status
        self.estimatedWaitSeconds = estimatedWaitSeconds
    }

    /// Combines a queue's business hours (nil: always open) and its online agents into a report.
    /// The wait estimate is kept only when the queue is open.
    public static func evaluate(hours: BusinessHours?, at date: Date, agentsOnline: Int, estimatedWaitSeconds: Int?) -> AvailabilityReport {
        if let hours, case .closed(let nextOpening) = hours.status(at: date) {
            return AvailabilityReport(status: .closed(nextOpening: nextOpening))
        }
        if agentsOnline <= 0 { return AvailabilityReport(status: .noAgentOnline) }
        return AvailabilityReport(status: .open, estimatedWaitSeconds: estimatedWaitSeconds)
    }

    /// True when a chat can start now.
    public var isOpen: Bool { status == .open }

    enum CodingKeys: String, CodingKey {
        case status, nextOpening = "next_opening", estimatedWaitSeconds = "estimated_wait_seconds"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .status) {
        case "open": status = .open
        case "closed": status = .closed(nextOpening: try container.decodeIfPresent(Date.self, forKey: .nextOpening))
        case "no_agent_online": status = .noAgentOnline
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: "unknown status \(other)")
        }
        estimatedWaitSeconds = try container.decodeIfPresent(Int.self, forKey: .estimatedWaitSeconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch status {
        case .open: try container.encode("open", forKey: .status)
        case .closed(let nextOpening):
            try container.encode("closed", forKey: .status)
            try container.encodeIfPresent(nextOpening, forKey: .nextOpening)
        case .noAgentOnline: try container.encode("no_agent_online", forKey: .status)
        }
        try container.encodeIfPresent(estimatedWaitSeconds, forKey: .estimatedWaitSeconds)
    }
}
