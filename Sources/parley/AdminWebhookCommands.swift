import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley admin webhooks …`: an app's webhook endpoints and their deliveries.
struct AdminWebhooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Webhook endpoints of an app: list, create, update, rotate the secret, delete, enable, deliveries, resend.",
        subcommands: [List.self, Create.self, Update.self, RotateSecret.self, Delete.self, Enable.self, Deliveries.self, Resend.self])

    struct EndpointOption: ParsableArguments {
        @Option(name: .customLong("webhook"), help: ArgumentHelp("The endpoint id.", valueName: "whk_id"), transform: WebhookEndpointID.argument)
        var id: WebhookEndpointID
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an app's webhook endpoints.",
            discussion: "Example:\n  parley admin webhooks list --app app_01M7ZTMFGRT0845FK7V0KF9X98 --token op-secret")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let list = try await AdminConnection.with(options) { try await $0.call(.webhooks.list(try $0.app(app))) }
            try Output(json: options.json).show(list) { list in
                Describe.table(list.webhooks.map { [$0.id.rawValue, $0.isEnabled ? "on" : "off", $0.url, $0.events.isEmpty ? "all events" : $0.events.map(\.rawValue).joined(separator: ",")] })
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an endpoint; its signing secret (whsec_…) is printed this once.",
            discussion: """
                Example:
                  parley admin webhooks create --url https://hooks.acme.test/parley \\
                      --event message.created --event rating.created --token op-secret --app app_01M7ZTMFGRT0845FK7V0KF9X98
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @Option(help: "The https:// URL events are POSTed to (a public address).") var url: String
        @Option(name: .customLong("event"), help: "An event to send (repeat it; none: every event).") var events: [String] = []
        @Option(help: "A note for admins.") var description: String?

        func validate() throws {
            try options.requireApp(app)
            for event in events where WebhookEventType(rawValue: event) == nil {
                throw ValidationError("--event: one of \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run() async throws {
            let request = CreateWebhookRequest(url: url, events: events.compactMap(WebhookEventType.init(rawValue:)), description: description)
            let created = try await AdminConnection.with(options) { try await $0.call(.webhooks.create(try $0.app(app)), body: request) }
            try Output(json: options.json).show(created, Describe.webhookWithSecret)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an endpoint's URL, events or description, or turn it off or on.",
            discussion: "Example:\n  parley admin webhooks update --webhook whk_01M7ZTMFGRT0845FK7V0KF9X98 --disable --token op-secret --app app_…")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @OptionGroup var webhook: EndpointOption
        @Option(help: "A new URL.") var url: String?
        @Option(name: .customLong("event"), help: "The events to send (repeat it); replaces the list.") var events: [String] = []
        @Flag(name: .customLong("all-events"), help: "Send every event.") var allEvents = false
        @Option(help: "A new description.") var description: String?
        @Flag(help: "Turn the endpoint off.") var disable = false
        @Flag(help: "Turn the endpoint on again.") var enable = false

        func validate() throws {
            try options.requireApp(app)
            if disable && enable { throw ValidationError("--disable or --enable, not both") }
            for event in events where WebhookEventType(rawValue: event) == nil {
                throw ValidationError("--event: one of \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run() async throws {
            let request = UpdateWebhookRequest(
                url: url, events: allEvents ? [] : (events.isEmpty ? nil : events.compactMap(WebhookEventType.init(rawValue:))), description: description,
                enabled: disable ? false : (enable ? true : nil))
            let updated = try await AdminConnection.with(options) { try await $0.call(.webhooks.update(try $0.app(app), webhook.id), body: request) }
            try Output(json: options.json).show(updated, Describe.webhook)
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret", abstract: "A new signing secret, printed this once; the old one keeps signing beside it for the overlap.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @OptionGroup var webhook: EndpointOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let rotated = try await AdminConnection.with(options) { try await $0.call(.webhooks.rotateSecret(try $0.app(app), webhook.id)) }
            try Output(json: options.json).show(rotated, Describe.webhookWithSecret)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an endpoint; its waiting deliveries are given up.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @OptionGroup var webhook: EndpointOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            try await AdminConnection.with(options) { connection in try await connection.http.call(.webhooks.delete(try connection.app(app), webhook.id), token: connection.token) }
            print("deleted \(webhook.id)")
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn a disabled endpoint on again; its waiting deliveries are tried at once.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @OptionGroup var webhook: EndpointOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let endpoint = try await AdminConnection.with(options) { try await $0.call(.webhooks.enable(try $0.app(app), webhook.id)) }
            try Output(json: options.json).show(endpoint, Describe.webhook)
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An endpoint's recent deliveries, newest first, with their attempts.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @OptionGroup var webhook: EndpointOption
        @Option(help: "How many (1 to 200; default 20).") var limit = 20

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let list = try await AdminConnection.with(options) { try await $0.call(.webhooks.deliveries(try $0.app(app), webhook.id).query("limit", limit)) }
            try Output(json: options.json).show(list) { list in
                Describe.table(list.deliveries.map { delivery in
                    [delivery.id, delivery.type, delivery.status.rawValue, "\(delivery.attempts.count) attempts",
                     delivery.attempts.last.map { $0.status.map { "HTTP \($0)" } ?? ($0.error ?? "") } ?? ""]
                })
            }
        }
    }

    struct Resend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send one delivery again, with the same webhook-id.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption
        @OptionGroup var webhook: EndpointOption
        @Option(help: "The delivery id (from `deliveries`).") var delivery: String

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let resent = try await AdminConnection.with(options) { try await $0.call(.webhooks.resend(try $0.app(app), webhook.id, delivery)) }
            try Output(json: options.json).show(resent) { ["\($0.id): \($0.status.rawValue), due again"] }
        }
    }
}

extension Describe {
    static func webhook(_ endpoint: WebhookEndpoint) -> [String] {
        fields([("webhook id", endpoint.id.rawValue), ("url", endpoint.url), ("enabled", endpoint.isEnabled ? "yes" : "no"),
                ("events", endpoint.events.isEmpty ? "all" : endpoint.events.map(\.rawValue).joined(separator: ", ")),
                ("disabled because", endpoint.disabledReason ?? "-")])
    }

    static func webhookWithSecret(_ created: WebhookEndpointWithSecret) -> [String] {
        webhook(created.endpoint) + fields([("secret", created.secret)]) + ["Keep the secret now: it is not shown again."]
    }
}
