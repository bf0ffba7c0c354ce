import ArgumentParser
import ParleyCore

/// `parley admin …`: apps, queues and agents over the HTTP admin API of a running parleyd.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage apps, queues and agents on a running server.",
        discussion: """
            Sign in as the operator with --token (parleyd's --admin-token; env PARLEY_TOKEN), who \
            manages every app, or as an admin agent with --email and --password (env PARLEY_EMAIL, \
            PARLEY_PASSWORD), who manages their own app; --app then defaults to it. Add --json to \
            get the server's JSON object.

            Examples:
              parley admin app create --name "Acme" --token op-secret
              export PARLEY_EMAIL=agent@demo.parley PARLEY_PASSWORD='(printed by parleyd)'
              parley admin agent create --name Bob --agent-email bob@acme.test --role admin
            """,
        subcommands: [AdminApp.self, AdminQueue.self, AdminAgent.self])
}

/// Paths of the admin API (docs/protocol.md "Administration"). Ids are checked when parsed, so
/// they need no escaping.
enum AdminPath {
    static let apps = "/v1/admin/apps"
    static func app(_ app: AppID) -> String { "\(apps)/\(app)" }
    static func rotateKey(_ app: AppID) -> String { "\(apps)/\(app)/rotate-key" }
    static func queues(_ app: AppID) -> String { "\(apps)/\(app)/queues" }
    static func queue(_ queue: QueueID, in app: AppID) -> String { "\(apps)/\(app)/queues/\(queue)" }
    static func agents(_ app: AppID) -> String { "\(apps)/\(app)/agents" }
    static func agent(_ agent: AgentID, in app: AppID) -> String { "\(apps)/\(app)/agents/\(agent)" }
}
