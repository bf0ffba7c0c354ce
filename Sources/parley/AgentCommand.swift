import ArgumentParser
import Foundation
import ParleyCore

/// `parley agent`: an agent's desk in the terminal: sign in, go online, answer conversations.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Answer conversations as an agent, in the terminal.",
        discussion: """
            Signs in, sets your availability, and shows the conversations routed to you; you \
            answer them from the terminal. Signing out (Ctrl-D) sets you offline.

            Examples:
              parley agent --email agent@demo.parley --password "$PASSWORD"
              PARLEY_EMAIL=grace@acme.test PARLEY_PASSWORD="$PASSWORD" \\
                  parley agent --server https://chat.acme.test
              parley agent --email grace@acme.test --password "$PASSWORD" \\
                  --availability away
            """)

    @OptionGroup var server: ServerOptions

    @Option(help: ArgumentHelp("Your login email (env PARLEY_EMAIL).", valueName: "email"))
    var email: String?

    @Option(help: ArgumentHelp("Your password (env PARLEY_PASSWORD, which keeps it out of the process list).", valueName: "password"))
    var password: String?

    @Option(help: "online (take new conversations), away (keep yours, take none) or offline (default online).")
    var availability: Availability = .online

    /// The email: the flag, else `PARLEY_EMAIL`.
    var resolvedEmail: String? { email ?? ProcessInfo.processInfo.environment["PARLEY_EMAIL"].flatMap { $0.isEmpty ? nil : $0 } }
    /// The password: the flag, else `PARLEY_PASSWORD`.
    var resolvedPassword: String? { password ?? ProcessInfo.processInfo.environment["PARLEY_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 } }

    func validate() throws {
        guard let email = resolvedEmail else { throw ValidationError("sign in with --email and --password (or PARLEY_EMAIL and PARLEY_PASSWORD)") }
        try Check.email(email)
        guard resolvedPassword != nil else { throw ValidationError("--email \(email) needs --password (or PARLEY_PASSWORD)") }
    }

    func run() async throws {
        try await AgentTerminal(command: self).run()
    }
}
