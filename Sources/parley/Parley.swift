import ArgumentParser
import Foundation

/// `parley`: Parley from the terminal — administration over the HTTP API, and (soon) a visitor's
/// and an agent's chat.
@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Parley from the terminal: administration, a visitor's chat, an agent's desk.",
        discussion: """
            Every command talks to a running parleyd (--server, or PARLEY_SERVER; default \
            \(ServerOptions.defaultServer)).

            Examples:
              parley admin app list --token "$PARLEY_ADMIN_TOKEN"
              parley admin agent list --email agent@demo.parley --password "$PASSWORD"
              parley chat --app app_01M7ZTMFGRT0845FK7V0KF9X98 --name Ann

            Exit codes: 0 done, 1 the server refused the request, 2 not available yet, \
            3 the server cannot be reached, 4 the credentials were refused, 64 bad arguments.
            """,
        subcommands: [Admin.self, ChatCommand.self, AgentCommand.self])

    /// Runs the command, printing a ``CLIError`` as one line on stderr with its exit code (the one
    /// place where failures become exit codes); everything else is ArgumentParser's usual handling.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            error.report()
            exit(withError: ExitCode(error.exitCode))
        } catch {
            exit(withError: error)
        }
    }
}
