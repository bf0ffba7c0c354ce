import Foundation
import ParleyCore

/// What the admin commands print: readable lines, or with `--json` the server's JSON object
/// (re-encoded with Parley's coders, so keys and dates are exactly as on the wire).
struct Output {
    let json: Bool

    /// Prints `value` as JSON, or as the lines `lines` makes of it.
    func show<Value: Encodable>(_ value: Value, _ lines: (Value) -> [String]) throws {
        if json {
            print(String(decoding: try ParleyJSON.encode(value), as: UTF8.self))
        } else {
            for line in lines(value) { print(line) }
        }
    }
}

/// The readable forms of the admin API's objects.
enum Describe {
    /// `label:  value` lines with the values aligned.
    static func fields(_ pairs: [(String, String)]) -> [String] {
        let width = (pairs.map(\.0.count).max() ?? 0) + 1
        return pairs.map { label, value in (label + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0) + value }
    }

    /// Rows of columns, each column as wide as its widest cell, two spaces apart.
    static func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    static func app(_ app: App) -> [String] { fields(appFields(app)) }

    static func credentials(_ credentials: AppCredentials) -> [String] {
        fields(appFields(credentials.app) + [("secret key", credentials.secretKey + "   (shown once: keep it on your servers, never in an app)")])
    }

    static func apps(_ list: AppList) -> [String] {
        table(list.apps.map { [$0.id.rawValue, $0.name] })
    }

    static func queue(_ queue: Queue) -> [String] {
        fields([("queue id", queue.id.rawValue), ("app id", queue.appID.rawValue), ("name", queue.name),
                ("created", Timestamp.format(queue.createdAt))])
    }

    static func queues(_ list: QueueList) -> [String] {
        table(list.queues.map { [$0.id.rawValue, $0.name] })
    }

    static func agent(_ agent: Agent) -> [String] { fields(agentFields(agent)) }

    static func created(_ created: CreatedAgent) -> [String] {
        fields(agentFields(created.agent) + (created.generatedPassword.map { [("password", $0 + "   (generated; shown once)")] } ?? []))
    }

    static func agents(_ list: AgentList) -> [String] {
        table(list.agents.map { agent in
            [agent.id.rawValue, agent.email, agent.name, agent.role.rawValue, "capacity \(agent.capacity)",
             agent.isDisabled ? "disabled" : agent.availability.rawValue]
        })
    }

    private static func appFields(_ app: App) -> [(String, String)] {
        [("app id", app.id.rawValue), ("name", app.name), ("created", Timestamp.format(app.createdAt))]
    }

    private static func agentFields(_ agent: Agent) -> [(String, String)] {
        [
            ("agent id", agent.id.rawValue), ("app id", agent.appID.rawValue), ("name", agent.name), ("email", agent.email),
            ("role", agent.role.rawValue),
            ("queues", agent.queueIDs.isEmpty ? "none" : agent.queueIDs.map(\.rawValue).joined(separator: ", ")),
            ("capacity", String(agent.capacity)), ("availability", agent.availability.rawValue),
            ("account", agent.isDisabled ? "disabled" : "enabled"), ("created", Timestamp.format(agent.createdAt)),
        ]
    }
}
