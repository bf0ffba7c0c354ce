import ArgumentParser
import ParleyCore

/// `parley admin queue …`: the queues where an app's conversations wait for agents.
struct AdminQueue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Queues of an app: list, create, rename, callback settings.",
        subcommands: [List.self, Create.self, Rename.self, AdminQueueCallbacks.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an app's queues, oldest first (the first is where conversations go by default).",
            discussion: """
                Examples:
                  parley admin queue list --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --token op-secret
                  parley admin queue list --email agent@demo.parley --password "$PASSWORD"
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let list = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.queues(try connection.app(app)))
            }
            try Output(json: options.json).show(list, Describe.queues)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a queue.",
            discussion: """
                Examples:
                  parley admin queue create --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --name Billing --token op-secret
                  parley admin queue create --name Returns \\
                      --email agent@demo.parley --password "$PASSWORD"
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(help: "The queue's name (one line, 1 to 100 characters).") var name: String

        func validate() throws {
            try options.requireApp(app)
            try Check.name(name)
        }

        func run() async throws {
            let queue = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.createQueue(try connection.app(app)), body: QueueRequest(name: name))
            }
            try Output(json: options.json).show(queue, Describe.queue)
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename a queue.",
            discussion: """
                Examples:
                  parley admin queue rename --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --queue que_01M7ZTMFGSG99111MHW8Q0K4DT --name "Support (EN)" \\
                      --token op-secret
                  parley admin queue rename --queue que_01M7ZTMFGSG99111MHW8Q0K4DT \\
                      --name Help --email agent@demo.parley --password "$PASSWORD"
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(help: ArgumentHelp("The queue id.", valueName: "queue_id"), transform: QueueID.argument) var queue: QueueID
        @Option(help: "The new name (one line, 1 to 100 characters).") var name: String

        func validate() throws {
            try options.requireApp(app)
            try Check.name(name)
        }

        func run() async throws {
            let renamed = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.renameQueue(try connection.app(app), queue), body: QueueRequest(name: name))
            }
            try Output(json: options.json).show(renamed, Describe.queue)
        }
    }
}
