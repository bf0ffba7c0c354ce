import ArgumentParser
import Foundation
import ParleyCore

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

    func validate() throws {
        if let name { try Check.shortText(name, option: "--name", maxLength: 100) }
        if let email { try Check.email(email) }
        if let subject { try Check.shortText(subject, option: "--subject", maxLength: Limits.maxSubjectLength) }
    }

    func run() async throws {
        try await ChatTerminal(command: self).run()
    }
}
