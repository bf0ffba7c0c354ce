import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley admin push …`: an app's push providers (keys sent once, never shown again), message
/// previews, and the latest pushes.
struct AdminPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Push notifications of an app: show, set-apns, set-fcm, remove, previews, deliveries.",
        subcommands: [Show.self, SetAPNs.self, SetFCM.self, Remove.self, Previews.self, Deliveries.self])

    /// A provider, as `remove` names it.
    enum Provider: String, CaseIterable, ExpressibleByArgument {
        case apns, fcm
    }

    /// `previews on|off`.
    enum Switch: String, CaseIterable, ExpressibleByArgument {
        case on, off
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Which providers are set up (never their keys), and whether notifications show previews.",
            discussion: "Example:\n  parley admin push show --app app_01M7ZTMFGRT0845FK7V0KF9X98 --token op-secret")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let settings = try await AdminConnection.with(options) { try await $0.call(.push.settings(try $0.app(app))) }
            try Output(json: options.json).show(settings, Describe.push)
        }
    }

    struct SetAPNs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-apns",
            abstract: "Set or replace the APNs key (Apple's .p8 file); it is sealed by the server and never shown again.",
            discussion: """
                Example:
                  parley admin push set-apns --team-id DEF123GHIJ --key-id ABC123DEFG --topic com.acme.app \\
                      --key-file AuthKey_ABC123DEFG.p8 --token op-secret --app app_01M7ZTMFGRT0845FK7V0KF9X98
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(name: .customLong("team-id"), help: "The Apple developer team id (10 characters).") var teamID: String
        @Option(name: .customLong("key-id"), help: "The key's id (10 characters).") var keyID: String
        @Option(help: "The app's bundle id, such as com.acme.app.") var topic: String
        @Option(name: .customLong("key-file"), help: ArgumentHelp("The .p8 file.", valueName: "path")) var keyFile: String

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            guard let key = try? String(contentsOfFile: keyFile, encoding: .utf8) else { throw ValidationError("--key-file: cannot read \(keyFile)") }
            let request = APNsCredentialsRequest(teamID: teamID, keyID: keyID, privateKey: key, topic: topic)
            let settings = try await AdminConnection.with(options) { try await $0.call(.push.setAPNs(try $0.app(app)), body: request) }
            try Output(json: options.json).show(settings, Describe.push)
        }
    }

    struct SetFCM: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-fcm",
            abstract: "Set or replace the Firebase service account (its JSON key file); sealed by the server and never shown again.",
            discussion: """
                Example:
                  parley admin push set-fcm --service-account acme-firebase-adminsdk.json --token op-secret --app app_01M7ZTMFGRT0845FK7V0KF9X98
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(name: .customLong("service-account"), help: ArgumentHelp("The service account's JSON key file.", valueName: "path"))
        var serviceAccount: String

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: serviceAccount) else {
                throw ValidationError("--service-account: cannot read \(serviceAccount)")
            }
            let account: FCMServiceAccount
            do {
                account = try ParleyJSON.decode(FCMServiceAccount.self, from: data)
            } catch {
                throw ValidationError("--service-account: not a service account's JSON key file (project_id, private_key, client_email)")
            }
            let request = FCMCredentialsRequest(serviceAccount: account)
            let settings = try await AdminConnection.with(options) { try await $0.call(.push.setFCM(try $0.app(app)), body: request) }
            try Output(json: options.json).show(settings, Describe.push)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a provider's key: its devices get no more pushes.",
            discussion: "Example:\n  parley admin push remove fcm --token op-secret --app app_01M7ZTMFGRT0845FK7V0KF9X98")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Argument(help: "apns or fcm.") var provider: Provider

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let settings = try await AdminConnection.with(options) { connection in
                let appID = try connection.app(app)
                switch provider {
                case .apns: return try await connection.call(.push.removeAPNs(appID))
                case .fcm: return try await connection.call(.push.removeFCM(appID))
                }
            }
            try Output(json: options.json).show(settings, Describe.push)
        }
    }

    struct Previews: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Notifications show the start of the agent's text (on) or only who wrote (off).",
            discussion: "Example:\n  parley admin push previews off --token op-secret --app app_01M7ZTMFGRT0845FK7V0KF9X98")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Argument(help: "on or off.") var state: Switch

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let request = UpdatePushSettingsRequest(previews: state == .on)
            let settings = try await AdminConnection.with(options) { try await $0.call(.push.updateSettings(try $0.app(app)), body: request) }
            try Output(json: options.json).show(settings, Describe.push)
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The latest pushes, newest first, with their attempts.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(help: "How many (1 to 200; default 50).") var limit = 50

        func validate() throws {
            try options.requireApp(app)
            guard (1...200).contains(limit) else { throw ValidationError("--limit: 1 to 200") }
        }

        func run() async throws {
            let list = try await AdminConnection.with(options) { try await $0.call(.push.deliveries(try $0.app(app)).query("limit", limit)) }
            try Output(json: options.json).show(list, Describe.pushDeliveries)
        }
    }
}

extension Describe {
    static func push(_ settings: PushSettings) -> [String] {
        let apns = settings.apns.map { "team \($0.teamID), key \($0.keyID), topic \($0.topic), updated \(Timestamp.format($0.updatedAt))" }
        let fcm = settings.fcm.map { "project \($0.projectID), \($0.clientEmail), updated \(Timestamp.format($0.updatedAt))" }
        return fields([("apns", apns ?? "not set up"), ("fcm", fcm ?? "not set up"), ("previews", settings.previews ? "on" : "off")])
    }

    static func pushDeliveries(_ list: PushDeliveryList) -> [String] {
        guard !list.deliveries.isEmpty else { return ["no pushes yet"] }
        return table([["id", "kind", "device", "conversation", "status", "attempts", "last error"]] + list.deliveries.map { delivery in
            [delivery.id, delivery.kind.rawValue, delivery.deviceID, delivery.conversationID.rawValue, pushStatus(delivery),
             String(delivery.attempts.count), delivery.lastError ?? "-"]
        })
    }

    /// "delivered", "skipped", "failed", "pending, next try 2026-…" (the reason is in the last error).
    static func pushStatus(_ delivery: PushDelivery) -> String {
        switch delivery.status {
        case .delivered: "delivered"
        case .skipped: "skipped"
        case .failed: "failed"
        case .pending: delivery.nextAttemptAt.map { "pending, next try \(Timestamp.format($0))" } ?? "pending"
        }
    }
}
