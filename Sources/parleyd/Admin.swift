import ArgumentParser
import Foundation
import ParleyCore
import ParleyServer
import ParleyStore

/// `parleyd admin …`: manage apps, queues and agents directly on the local database.
/// (While parleyd runs, the admin HTTP API does the same and tells routing at once.)
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage apps, queues and agents on the local database.",
        subcommands: [AppCommand.self, QueueCommand.self, AgentCommand.self])

    struct AppCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "app", abstract: "Apps (tenants).", subcommands: [Create.self, List.self, RotateKey.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create an app and print its id and secret key.")
            @OptionGroup var common: CommonOptions
            @Option(help: "The app's name.") var name: String
            func run() async throws {
                let credentials = try await withAdmin(common) { try await $0.createApp(name: name) }
                print("app id:     \(credentials.app.id)\nsecret key: \(credentials.secretKey)")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List apps.")
            @OptionGroup var common: CommonOptions
            func run() async throws {
                let store = try await common.openStore()
                for app in try await store.apps() { print("\(app.id)  \(app.name)") }
                try await store.close()
            }
        }

        struct RotateKey: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "rotate-key", abstract: "Replace an app's secret key.")
            @OptionGroup var common: CommonOptions
            @Option(help: "The app id.") var app: String
            func run() async throws {
                let id = try parseID(app, as: AppID.self)
                let credentials = try await withAdmin(common) { try await $0.rotateKey(app: id) }
                print("secret key: \(credentials.secretKey)")
            }
        }
    }

    struct QueueCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "queue", abstract: "Queues of an app.", subcommands: [Create.self, List.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create a queue.")
            @OptionGroup var common: CommonOptions
            @Option(help: "The app id.") var app: String
            @Option(help: "The queue's name.") var name: String
            func run() async throws {
                let id = try parseID(app, as: AppID.self)
                let queue = try await withAdmin(common) { try await $0.createQueue(app: id, name: name) }
                print("queue id: \(queue.id)")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List an app's queues.")
            @OptionGroup var common: CommonOptions
            @Option(help: "The app id.") var app: String
            func run() async throws {
                let id = try parseID(app, as: AppID.self)
                let store = try await common.openStore()
                for queue in try await store.queues(app: id) { print("\(queue.id)  \(queue.name)") }
                try await store.close()
            }
        }
    }

    struct AgentCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "agent", abstract: "Agents and admins of an app.", subcommands: [Create.self, List.self, Update.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Create an agent; without --password one is generated and printed once.")
            @OptionGroup var common: CommonOptions
            @Option(help: "The app id.") var app: String
            @Option(help: "Display name.") var name: String
            @Option(help: "Login email, unique on the server.") var email: String
            @Option(help: "Password (8+ characters); omitted: generated.") var password: String?
            @Option(help: "agent or admin (default agent).") var role: String = "agent"
            @Option(name: .customLong("queue"), help: "A queue id; repeat for several (default: every queue).") var queues: [String] = []
            @Option(help: "Most conversations at once (default 3).") var capacity: Int = 3
            func run() async throws {
                let appID = try parseID(app, as: AppID.self)
                guard let role = AgentRole(rawValue: role) else { throw ValidationError("--role is agent or admin") }
                let queueIDs = try queues.map { try parseID($0, as: QueueID.self) }
                let created = try await withAdmin(common) {
                    try await $0.createAgent(app: appID, CreateAgentRequest(
                        name: name, email: email, password: password, role: role, queueIDs: queueIDs.isEmpty ? nil : queueIDs, capacity: capacity))
                }
                print("agent id: \(created.agent.id)")
                if let generated = created.generatedPassword { print("password: \(generated)") }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List an app's agents.")
            @OptionGroup var common: CommonOptions
            @Option(help: "The app id.") var app: String
            func run() async throws {
                let id = try parseID(app, as: AppID.self)
                let store = try await common.openStore()
                for agent in try await store.agents(app: id) {
                    print("\(agent.id)  \(agent.email)  \(agent.role.rawValue)  capacity \(agent.capacity)\(agent.isDisabled ? "  disabled" : "")")
                }
                try await store.close()
            }
        }

        struct Update: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Change an agent: password, role, capacity, enabled.")
            @OptionGroup var common: CommonOptions
            @Option(help: "The app id.") var app: String
            @Option(help: "The agent id.") var agent: String
            @Option(help: "A new password (ends the agent's sessions).") var password: String?
            @Option(help: "agent or admin.") var role: String?
            @Option(help: "Most conversations at once.") var capacity: Int?
            @Flag(help: "Disable the account (ends its sessions).") var disable = false
            @Flag(help: "Enable the account.") var enable = false
            func run() async throws {
                let appID = try parseID(app, as: AppID.self)
                let agentID = try parseID(agent, as: AgentID.self)
                let role = try role.map { text in
                    guard let role = AgentRole(rawValue: text) else { throw ValidationError("--role is agent or admin") }
                    return role
                }
                let disabled: Bool? = disable ? true : (enable ? false : nil)
                let updated = try await withAdmin(common) {
                    try await $0.updateAgent(agentID, app: appID, UpdateAgentRequest(password: password, role: role, capacity: capacity, isDisabled: disabled))
                }
                print("updated \(updated.id)")
            }
        }
    }
}

/// Runs an admin operation on the local store and closes it, printing API errors plainly.
private func withAdmin<T>(_ common: CommonOptions, _ body: (AdminService) async throws -> T) async throws -> T {
    let store = try await common.openStore()
    let service = AdminService(store: store, hasher: PasswordHasher())
    do {
        let value = try await body(service)
        try await store.close()
        return value
    } catch let error as APIError {
        try? await store.close()
        throw ValidationError(error.message)
    } catch {
        try? await store.close()
        throw ValidationError(APIError.from(error).message)
    }
}

private func parseID<Kind>(_ text: String, as type: Identifier<Kind>.Type) throws -> Identifier<Kind> {
    guard let id = Identifier<Kind>(validating: text) else { throw ValidationError("\(text) is not a valid \(Kind.prefix)_… id") }
    return id
}
