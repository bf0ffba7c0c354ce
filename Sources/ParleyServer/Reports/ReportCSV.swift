import Foundation
import ParleyCore
import ParleyStore

/// `conversations.csv`: one row per conversation of a report's range, the facts its figures are
/// computed from. RFC 4180 (CRLF, quotes doubled); times in UTC, ISO 8601; durations in
/// milliseconds. A cell a visitor wrote that starts like a formula (`=`, `+`, `-`, `@`, tab, CR)
/// gets a leading `'` so a spreadsheet shows it instead of running it.
enum ReportCSV {
    static let header = [
        "conversation_id", "started_at", "day", "queue_id", "queue_name", "agent_id", "agent_name", "state",
        "first_response_at", "first_responder_id", "first_response_ms", "ended_at", "resolution_ms", "rating", "rating_comment",
    ]

    static func document(_ conversations: [ReportConversation], range: ReportRange, queueNames: [QueueID: String], agentNames: [AgentID: String]) -> String {
        var lines = [line(header)]
        for row in conversations {
            let day = range.dayIndex(of: row.createdAt).map { range.days[$0].date } ?? ""
            lines.append(line([
                row.id.rawValue, Timestamp.format(row.createdAt), day, row.queueID.rawValue, queueNames[row.queueID] ?? "",
                row.agentID?.rawValue ?? "", row.agentID.flatMap { agentNames[$0] } ?? "", row.state.rawValue,
                row.firstResponseAt.map(Timestamp.format) ?? "", row.firstResponder?.rawValue ?? "",
                row.firstResponseAt.map { String(ReportBuilder.milliseconds(from: row.createdAt, to: $0)) } ?? "",
                row.endedAt.map(Timestamp.format) ?? "",
                row.endedAt.map { String(ReportBuilder.milliseconds(from: row.createdAt, to: $0)) } ?? "",
                row.rating.map { String($0.score) } ?? "", row.rating?.comment ?? "",
            ]))
        }
        return lines.joined()
    }

    static func line(_ cells: [String]) -> String {
        cells.map(cell).joined(separator: ",") + "\r\n"
    }

    static func cell(_ value: String) -> String {
        var value = value
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { value = "'" + value }
        guard value.unicodeScalars.contains(where: { ",\"\n\r".unicodeScalars.contains($0) }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
