import ArgumentParser
import ParleyCore

/// `parley admin app …`: apps (tenants).
struct AdminApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Apps: list, create, show, rename, rotate the secret key.",
        subcommands: [List.self, Create.self, Show.self, Rename.self, RotateKey.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List apps: every app for the operator, their own for an admin.",
            discussion: """
                Examples:
                  parley admin app list --token op-secret
                  PARLEY_TOKEN=op-secret parley admin app list --json
                """)
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let list = try await AdminConnection.with(options) { try await $0.call(.admin.apps) }
            try Output(json: options.json).show(list, Describe.apps)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an app (operator only); prints its id and its secret key, once.",
            discussion: """
                Examples:
                  parley admin app create --name "Acme Shop" --token op-secret
                  PARLEY_TOKEN=op-secret parley admin app create --name "Acme Shop" --json
                """)
        @OptionGroup var options: AdminOptions
        @Option(help: "The app's name (one line, 1 to 100 characters).") var name: String

        func validate() throws { try Check.name(name) }

        func run() async throws {
            let created = try await AdminConnection.with(options) {
                try await $0.call(.admin.createApp, body: CreateAppRequest(name: name))
            }
            try Output(json: options.json).show(created, Describe.credentials)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an app.",
            discussion: """
                Examples:
                  parley admin app show --app app_01M7ZTMFGRT0845FK7V0KF9X98 --token op-secret
                  parley admin app show --email agent@demo.parley --password "$PASSWORD"
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let shown = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.app(try connection.app(app)))
            }
            try Output(json: options.json).show(shown, Describe.app)
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename an app.",
            discussion: """
                Examples:
                  parley admin app rename --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --name "Acme" --token op-secret
                  parley admin app rename --name "Acme Support" \\
                      --email agent@demo.parley --password "$PASSWORD"
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(help: "The new name (one line, 1 to 100 characters).") var name: String

        func validate() throws {
            try options.requireApp(app)
            try Check.name(name)
        }

        func run() async throws {
            let renamed = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.renameApp(try connection.app(app)), body: CreateAppRequest(name: name))
            }
            try Output(json: options.json).show(renamed, Describe.app)
        }
    }

    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Replace an app's secret key; prints the new key, once. The old key stops working.",
            discussion: """
                Examples:
                  parley admin app rotate-key --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                      --token op-secret
                  PARLEY_EMAIL=agent@demo.parley PARLEY_PASSWORD="$PASSWORD" \\
                      parley admin app rotate-key --json
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let rotated = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.rotateKey(try connection.app(app)))
            }
            try Output(json: options.json).show(rotated, Describe.credentials)
        }
    }
}
