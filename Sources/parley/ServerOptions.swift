import ArgumentParser
import Foundation

/// `--server`: which parleyd to talk to. Shared by every command.
struct ServerOptions: ParsableArguments {
    /// Where parleyd listens when nothing else is said: its own default.
    static let defaultServer = "http://127.0.0.1:8080"

    @Option(name: .customLong("server"), help: ArgumentHelp(
        "The server's base URL (env PARLEY_SERVER; default \(ServerOptions.defaultServer)).", valueName: "url"))
    var serverFlag: String?

    /// The server URL: the flag, else `PARLEY_SERVER`, else the default.
    var serverURL: URL {
        get throws {
            let text = serverFlag ?? ProcessInfo.processInfo.environment["PARLEY_SERVER"] ?? Self.defaultServer
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host?.isEmpty == false
            else { throw ValidationError("--server: \(text) is not an http:// or https:// URL") }
            return url
        }
    }

    func validate() throws {
        _ = try serverURL
    }
}
