import ArgumentParser
import ParleyCore

/// `parley admin agent …`: the agents and admins of an app.
struct AdminAgent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Agents and admins of an app: list, show, create, update.",
        subcommands: [List.self, Show.self, Create.self, Update.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an app's agents: id, email, name, role, capacity, availability (or disabled).",
            discussion: """
                Examples:
                  parley admin agent list --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --token op-secret
                  PARLEY_EMAIL=agent@demo.parley PARLEY_PASSWORD="$PASSWORD" \\
                      parley admin agent list --json
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let list = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.agents(try connection.app(app)))
            }
            try Output(json: options.json).show(list, Describe.agents)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an agent.",
            discussion: """
                Examples:
                  parley admin agent show --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --agent agt_01M7ZTMFGT2G5J8M1P4S7V0Y3B --token op-secret
                  parley admin agent show --agent agt_01M7ZTMFGT2G5J8M1P4S7V0Y3B \\
                      --email agent@demo.parley --password "$PASSWORD"
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(help: ArgumentHelp("The agent id.", valueName: "agent_id"), transform: AgentID.argument) var agent: AgentID

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let shown = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.agent(try connection.app(app), agent))
            }
            try Output(json: options.json).show(shown, Describe.agent)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an agent; without --agent-password the server makes one and it is printed once.",
            discussion: """
                --email and --password are who you sign in as; the new agent's are --agent-email and \
                --agent-password. New agents are offline; they take conversations once they sign in and go online. \
                Without --queue the agent serves every queue the app has now.

                Examples:
                  parley admin agent create --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --name "Grace Hopper" --agent-email grace@acme.test --token op-secret
                  parley admin agent create --name Bob --agent-email bob@acme.test \\
                      --role admin --capacity 5 \\
                      --email agent@demo.parley --password "$PASSWORD"
                  PARLEY_EMAIL=agent@demo.parley PARLEY_PASSWORD="$PASSWORD" \\
                      parley admin agent create --name Ann --agent-email ann@acme.test \\
                      --queue que_01M7ZTMFGSG99111MHW8Q0K4DT
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(help: "Display name, shown to visitors (one line, 1 to 100 characters).") var name: String
        @Option(name: .customLong("agent-email"), help: ArgumentHelp("The new agent's login email (unique on the server).", valueName: "email"))
        var agentEmail: String
        @Option(name: .customLong("agent-password"), help: ArgumentHelp("The new agent's password (8 to 200 characters); omitted: generated.", valueName: "password"))
        var agentPassword: String?
        @Option(help: "agent or admin (default agent).") var role: AgentRole?
        @Option(name: .customLong("queue"), help: ArgumentHelp("A queue the agent serves; repeat for several (default: every queue).", valueName: "queue_id"),
                transform: QueueID.argument)
        var queues: [QueueID] = []
        @Option(help: "The most conversations at once, 0 to 100 (default 3).") var capacity: Int?

        func validate() throws {
            try options.requireApp(app)
            try Check.name(name)
            try Check.email(agentEmail, option: "--agent-email")
            if let agentPassword { try Check.password(agentPassword, option: "--agent-password") }
            if let capacity { try Check.capacity(capacity) }
        }

        func run() async throws {
            let request = CreateAgentRequest(
                name: name, email: agentEmail, password: agentPassword, role: role,
                queueIDs: queues.isEmpty ? nil : queues, capacity: capacity)
            let created = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.createAgent(try connection.app(app)), body: request)
            }
            try Output(json: options.json).show(created, Describe.created)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an agent: name, email, password, role, queues, capacity, enabled.",
            discussion: """
                Only what is given changes. A new password, or --disable, ends the agent's sessions \
                at once; --queue replaces the agent's queues.

                Examples:
                  parley admin agent update --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --agent agt_01M7ZTMFGT2G5J8M1P4S7V0Y3B --capacity 5 --token op-secret
                  parley admin agent update --agent agt_01M7ZTMFGT2G5J8M1P4S7V0Y3B \\
                      --disable --email agent@demo.parley --password "$PASSWORD"
                  PARLEY_EMAIL=agent@demo.parley PARLEY_PASSWORD="$PASSWORD" \\
                      parley admin agent update --agent agt_01M7ZTMFGT2G5J8M1P4S7V0Y3B \\
                      --agent-password 'new password 1' --role admin
                """)

        /// `--enable` or `--disable`, at most one.
        enum AccountState: EnumerableFlag {
            case enable, disable

            static func help(for value: Self) -> ArgumentHelp? {
                switch value {
                case .enable: "Enable the account again."
                case .disable: "Disable the account: no sign-in, no conversations; ends its sessions."
                }
            }
        }

        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(help: ArgumentHelp("The agent id.", valueName: "agent_id"), transform: AgentID.argument) var agent: AgentID
        @Option(help: "A new display name.") var name: String?
        @Option(name: .customLong("agent-email"), help: ArgumentHelp("A new login email.", valueName: "email"))
        var agentEmail: String?
        @Option(name: .customLong("agent-password"), help: ArgumentHelp("A new password (8 to 200 characters); ends the agent's sessions.", valueName: "password"))
        var agentPassword: String?
        @Option(help: "agent or admin.") var role: AgentRole?
        @Option(name: .customLong("queue"), help: ArgumentHelp("The queues the agent serves, replacing the current ones; repeat for several.", valueName: "queue_id"),
                transform: QueueID.argument)
        var queues: [QueueID] = []
        @Flag(name: .customLong("no-queues"), help: "Take the agent off every queue.") var noQueues = false
        @Option(help: "The most conversations at once, 0 to 100.") var capacity: Int?
        @Flag var accountState: AccountState?

        /// The PATCH body: only the fields given.
        var request: UpdateAgentRequest {
            UpdateAgentRequest(
                name: name, email: agentEmail, password: agentPassword, role: role,
                queueIDs: noQueues ? [] : (queues.isEmpty ? nil : queues), capacity: capacity,
                isDisabled: accountState.map { $0 == .disable })
        }

        func validate() throws {
            try options.requireApp(app)
            if let name { try Check.name(name) }
            if let agentEmail { try Check.email(agentEmail, option: "--agent-email") }
            if let agentPassword { try Check.password(agentPassword, option: "--agent-password") }
            if let capacity { try Check.capacity(capacity) }
            if noQueues && !queues.isEmpty { throw ValidationError("give either --queue or --no-queues, not both") }
            if request == UpdateAgentRequest() {
                throw ValidationError("nothing to change: give --name, --agent-email, --agent-password, --role, --queue, --no-queues, --capacity, --enable or --disable")
            }
        }

        func run() async throws {
            let body = request
            let updated = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.updateAgent(try connection.app(app), agent), body: body)
            }
            try Output(json: options.json).show(updated, Describe.agent)
        }
    }
}
