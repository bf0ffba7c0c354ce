import ArgumentParser
import ParleyCore

/// `parley admin queue callbacks`: a queue's callback settings (docs/protocol.md "Callbacks"):
/// shown as they are, or changed where an option is given.
struct AdminQueueCallbacks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callbacks",
        abstract: "Show or change a queue's callback settings.",
        discussion: """
            Without a change option, shows the settings (the standard ones until set). Requests \
            already made keep the settings of when they were made.

            Examples:
              parley admin queue callbacks --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                  --queue que_01M7ZTMFGSG99111MHW8Q0K4DT --token op-secret
              parley admin queue callbacks --queue que_01M7ZTMFGSG99111MHW8Q0K4DT \\
                  --dial-number +4930901820 --offer-seconds 90 --on-expiry end \\
                  --email agent@demo.parley --password "$PASSWORD"
            """)
    @OptionGroup var options: AdminOptions
    @OptionGroup var app: AppOption
    @Option(help: ArgumentHelp("The queue id.", valueName: "queue_id"), transform: QueueID.argument) var queue: QueueID
    @Option(help: ArgumentHelp("Whether visitors may ask this queue for callbacks.", valueName: "true|false")) var enabled: Bool?
    @Option(name: .customLong("offer-seconds"), help: ArgumentHelp("Seconds a visitor has to confirm an offer (10–3600).", valueName: "n"))
    var offerSeconds: Int?
    @Option(name: .customLong("snooze-minutes"), help: ArgumentHelp("Minutes \"try again later\" waits (1–240).", valueName: "n"))
    var snoozeMinutes: Int?
    @Option(name: .customLong("on-expiry"), help: ArgumentHelp("What an unconfirmed offer does: requeue (keeping its place) or end.", valueName: "requeue|end"))
    var onExpiry: CallbackExpiry?
    @Option(name: .customLong("dial-number"), help: ArgumentHelp("The number i_will_call visitors dial, in E.164; \"none\" removes it.", valueName: "number"))
    var dialNumber: String?

    var changes: Bool { enabled != nil || offerSeconds != nil || snoozeMinutes != nil || onExpiry != nil || dialNumber != nil }

    func validate() throws {
        try options.requireApp(app)
        if let offerSeconds, !(10...3_600).contains(offerSeconds) { throw ValidationError("--offer-seconds: between 10 and 3600") }
        if let snoozeMinutes, !(1...240).contains(snoozeMinutes) { throw ValidationError("--snooze-minutes: between 1 and 240") }
        if let dialNumber, dialNumber != "none", PhoneNumber.normalize(dialNumber, defaultCallingCode: nil) != dialNumber {
            throw ValidationError("--dial-number: a number in E.164, such as +4930901820, or none")
        }
    }

    func run() async throws {
        let settings = try await AdminConnection.with(options) { connection in
            let app = try connection.app(app)
            var settings = try await connection.call(.callbacks.settings(app, queue))
            guard changes else { return settings }
            if let enabled { settings.enabled = enabled }
            if let offerSeconds { settings.offerSeconds = offerSeconds }
            if let snoozeMinutes { settings.snoozeMinutes = snoozeMinutes }
            if let onExpiry { settings.onExpiry = onExpiry }
            if let dialNumber { settings.dialNumber = dialNumber == "none" ? nil : dialNumber }
            return try await connection.call(.callbacks.setSettings(app, queue), body: settings)
        }
        try Output(json: options.json).show(settings) { settings in
            Describe.fields([
                ("callbacks", settings.enabled ? "on" : "off"), ("offer", "\(settings.offerSeconds) s to confirm"),
                ("snooze", "\(settings.snoozeMinutes) min"), ("on expiry", settings.onExpiry == .requeue ? "back to the queue" : "the request ends"),
                ("dial number", settings.dialNumber ?? "none (no i_will_call)"),
            ])
        }
    }
}

extension CallbackExpiry: ExpressibleByArgument {}
