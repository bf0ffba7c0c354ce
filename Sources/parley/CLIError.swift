import ArgumentParser
import Foundation
import ParleyKit

/// A failure the tool explains in one line on stderr, with its own exit code. Every error from the
/// server becomes one of these in ``withServerErrors(server:_:)``; ``Parley/main()`` prints it.
///
/// | exit code | when |
/// |---|---|
/// | 1 | the server refused the request (its message is shown) |
/// | 2 | the command is not available yet |
/// | 3 | the server cannot be reached |
/// | 4 | the server refused the credentials (token, or email and password) |
/// | 64 | bad arguments (ArgumentParser's `ValidationError`, with the usage) |
struct CLIError: Error, CustomStringConvertible {
    /// The line shown on stderr, after `parley: `.
    let message: String
    /// The process's exit status.
    let exitCode: Int32

    static let requestRefusedCode: Int32 = 1
    static let notAvailableCode: Int32 = 2
    static let unreachableCode: Int32 = 3
    static let credentialsRefusedCode: Int32 = 4

    var description: String { message }

    /// The server cannot be reached at all.
    static func unreachable(_ server: URL) -> CLIError {
        CLIError(message: "cannot reach the server at \(display(server)) (is parleyd running?)", exitCode: unreachableCode)
    }

    /// A 401: a bad, expired or revoked token, or a wrong email or password.
    static let credentialsRefused = CLIError(message: "the server refused the credentials", exitCode: credentialsRefusedCode)

    /// A command whose implementation has not landed yet.
    static func notAvailable(_ command: String) -> CLIError {
        CLIError(message: "\(command) is not available yet", exitCode: notAvailableCode)
    }

    /// The one mapping from ParleyKit's errors to what the user reads and the exit code.
    static func from(_ error: ParleyError, server: URL) -> CLIError {
        if error.isNetworkError { return unreachable(server) }
        if error.isAuthorizationError { return credentialsRefused }
        // 400, 403, 404, 409, 5xx…: the server's own message names the problem (and the field).
        return CLIError(message: error.message, exitCode: requestRefusedCode)
    }

    /// Prints `parley: <message>` on stderr.
    func report() {
        FileHandle.standardError.write(Data("parley: \(message)\n".utf8))
    }

    /// The server URL as people type it (without the trailing slash URL adds to a bare host).
    private static func display(_ server: URL) -> String {
        let text = server.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}

/// Runs `body`, turning every ``ParleyError`` it throws into a ``CLIError`` (other errors, such
/// as ArgumentParser's `ValidationError`, pass unchanged).
func withServerErrors<T>(server: URL, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as ParleyError {
        throw CLIError.from(error, server: server)
    }
}
