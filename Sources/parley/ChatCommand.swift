import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley chat`: a visitor's chat in the terminal, through ParleyKit (as an app user would chat).
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat as a visitor of an app, in the terminal.",
        discussion: """
            Opens a conversation (or continues this device's), prints every message as it comes \
            and sends each line you type. The visitor's device id, history and unsent messages are \
            kept in --storage, so running it again continues the same conversation.

            Examples:
              parley chat --app app_01M7ZTMFGRT0845FK7V0KF9X98
              parley chat --server https://chat.acme.test \\
                  --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                  --name Ann --subject "Where is my order?"
              parley chat --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                  --queue que_01M7ZTMFGSG99111MHW8Q0K4DT --storage ~/.parley/ann
              parley chat --app app_01M7ZTMFGRT0845FK7V0KF9X98 \\
                  --callback call_me --phone "030 901820" --calling-code 49

            With --callback, asks to be helped when an agent is free instead of waiting in a \
            chat: call_me (the agent calls --phone), i_will_call (you get a number and an access \
            code), notify_and_chat (a chat with the agent who is ready). When an agent is ready, \
            type the number of your choice in the menu shown; /cancel cancels the request.
            """)

    @OptionGroup var server: ServerOptions

    @Option(help: ArgumentHelp("The app id (from parleyd's first-start banner or `parley admin app list`).", valueName: "app_id"),
            transform: AppID.argument)
    var app: AppID

    @Option(help: ArgumentHelp("The queue a new conversation opens in (default: the app's first queue).", valueName: "queue_id"),
            transform: QueueID.argument)
    var queue: QueueID?

    @Option(help: "Your name, as agents see it.")
    var name: String?

    @Option(help: "Your email, as agents see it.")
    var email: String?

    @Option(help: "The subject of a new conversation (one line).")
    var subject: String?

    @Option(help: ArgumentHelp("Where the visitor's device id, history and outbox are kept (default: ParleyKit's default folder).", valueName: "dir"))
    var storage: String?

    @Option(name: .customLong("user-id"), help: ArgumentHelp(
        "Sign in as the app's user with this id (verified identity), with one of --security-key, --user-token, --user-hash.",
        valueName: "id"))
    var userID: String?

    @Option(name: .customLong("security-key"), help: ArgumentHelp("A key the app's auth service checks for --user-id.", valueName: "key"))
    var securityKey: String?

    @Option(name: [.customLong("user-token"), .customLong("jwt")], help: ArgumentHelp("A signed user token (JWT) from the app's backend for --user-id.", valueName: "jwt"))
    var userToken: String?

    @Option(name: .customLong("user-hash"), help: ArgumentHelp(
        "HMAC-SHA256 of --user-id with the app's secret key, hex, from the app's backend.", valueName: "hex"))
    var userHash: String?

    @Option(name: .customLong("push-demo"), help: ArgumentHelp(
        "Register this terminal as a push device and show each push the local provider fake (Tests/Push/fake_providers.py) got for it, "
            + "decrypted: what a phone would show. The fake's control URL, e.g. http://127.0.0.1:PORT.", valueName: "url"))
    var pushDemo: String?

    @Option(help: ArgumentHelp("Ask for a callback instead of a chat: call_me, i_will_call or notify_and_chat.", valueName: "kind"))
    var callback: CallbackKind?

    @Option(help: ArgumentHelp("With --callback call_me: the number to call.", valueName: "number"))
    var phone: String?

    @Option(name: .customLong("calling-code"), help: ArgumentHelp("The country calling code for a --phone without + or 00, such as 49.", valueName: "digits"))
    var callingCode: String?

    @Option(name: .customLong("at"), help: ArgumentHelp("With --callback: not before this time (ISO 8601, such as 2026-12-01T09:30:00Z).", valueName: "time"),
            transform: ChatCommand.time)
    var callbackAt: Date?

    @Option(name: .customLong("until"), help: ArgumentHelp("With --callback and --at: the end of the window (ISO 8601).", valueName: "time"),
            transform: ChatCommand.time)
    var callbackUntil: Date?

    static func time(_ text: String) throws -> Date {
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw ArgumentProblem(description: "a time in ISO 8601, such as 2026-12-01T09:30:00Z")
        }
        return date
    }

    /// The identity the options give.
    var identity: ParleyConfiguration.Identity {
        guard let userID else { return .anonymous }
        if let securityKey { return .securityKey(userID: userID, key: securityKey) }
        if let userToken { return .userToken(userID: userID, token: userToken) }
        if let userHash { return .identityHash(userID: userID, hash: userHash) }
        return .anonymous
    }

    func validate() throws {
        let proofs = [securityKey, userToken, userHash].compactMap { $0 }
        if userID != nil && proofs.count != 1 {
            throw ValidationError("--user-id needs exactly one of --security-key, --user-token, --user-hash")
        }
        if userID == nil && !proofs.isEmpty { throw ValidationError("--security-key, --user-token and --user-hash need --user-id") }
        if let name { try Check.shortText(name, option: "--name", maxLength: 100) }
        if let email { try Check.email(email) }
        if let subject { try Check.shortText(subject, option: "--subject", maxLength: Limits.maxSubjectLength) }
        if callback == nil, phone != nil || callingCode != nil || callbackAt != nil || callbackUntil != nil {
            throw ValidationError("--phone, --calling-code, --at and --until go with --callback")
        }
        if callback == .callMe, phone == nil { throw ValidationError("--callback call_me needs --phone") }
        if callback != nil, callback != .callMe, phone != nil { throw ValidationError("--phone goes with --callback call_me only") }
        if callbackUntil != nil, callbackAt == nil { throw ValidationError("--until goes with --at") }
        if let pushDemo, URL(string: pushDemo)?.host == nil { throw ValidationError("--push-demo takes the fake's control URL, such as http://127.0.0.1:8081") }
    }

    func run() async throws {
        try await ChatTerminal(command: self).run()
    }
}
