import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// How `parley admin …` signs in, and how it prints. Every admin command takes these options.
struct AdminOptions: ParsableArguments {
    @OptionGroup var server: ServerOptions

    @Option(help: ArgumentHelp("The operator token: parleyd's --admin-token (env PARLEY_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("Sign in as this admin agent instead of the operator (env PARLEY_EMAIL).", valueName: "email"))
    var email: String?

    @Option(help: ArgumentHelp(
        "The admin agent's password (env PARLEY_PASSWORD, which keeps it out of the process list).", valueName: "password"))
    var password: String?

    @Flag(help: "Print the server's JSON object instead of readable lines.")
    var json = false

    /// Who the commands act as.
    enum Credentials {
        /// The operator: every app.
        case token(String)
        /// An admin agent, signed in with `POST /v1/agent/login`: their own app.
        case login(email: String, password: String)
    }

    /// The credentials: flags before environment variables, and a token before an email when both
    /// come from the same place.
    func credentials() throws -> Credentials {
        let environment = ProcessInfo.processInfo.environment
        if token != nil && email != nil {
            throw ValidationError("give either --token or --email and --password, not both")
        }
        if let token { return .token(token) }
        if let email { return .login(email: email, password: try password(for: email, environment)) }
        if let token = environment["PARLEY_TOKEN"], !token.isEmpty { return .token(token) }
        if let email = environment["PARLEY_EMAIL"], !email.isEmpty {
            return .login(email: email, password: try password(for: email, environment))
        }
        throw ValidationError("sign in with --token (the operator token) or --email and --password (an admin agent)")
    }

    private func password(for email: String, _ environment: [String: String]) throws -> String {
        guard let password = password ?? environment["PARLEY_PASSWORD"], !password.isEmpty else {
            throw ValidationError("--email \(email) needs --password (or PARLEY_PASSWORD)")
        }
        return password
    }

    func validate() throws {
        _ = try credentials()
    }

    /// Fails when the command needs an app and none is given or implied: the operator has no app
    /// of their own. Called from the `validate()` of each command with an `--app`, so that the
    /// usage shown is that command's.
    func requireApp(_ app: AppOption) throws {
        if app.id == nil, case .token = try credentials() {
            throw ValidationError("--app is needed with the operator token")
        }
    }
}

/// `--app`: the app a command acts on. Optional when signed in as an admin agent (their own app).
struct AppOption: ParsableArguments {
    @Option(name: .customLong("app"), help: ArgumentHelp(
        "The app id (default when signed in by email: the admin's own app).", valueName: "app_id"),
        transform: AppID.argument)
    var id: AppID?
}

/// A signed-in connection to the admin API (`/v1/admin/…`, docs/protocol.md "Administration").
struct AdminConnection {
    let http: HTTPClient
    let token: String
    /// The admin agent's own app, when signed in by email; nil for the operator.
    let ownApp: AppID?

    /// Signs in, runs `body`, and signs out again (an agent session would otherwise stay valid for
    /// 12 hours). Server errors become ``CLIError``s.
    static func with<T>(_ options: AdminOptions, _ body: (AdminConnection) async throws -> T) async throws -> T {
        let server = try options.server.serverURL
        let http = HTTPClient(baseURL: server, transport: try options.server.httpTransport, pinnedKeys: try options.server.pinnedKeys)
        return try await withServerErrors(server: server) {
            switch try options.credentials() {
            case .token(let token):
                return try await body(AdminConnection(http: http, token: token, ownApp: nil))
            case .login(let email, let password):
                let session = try await http.call(.session.agentLogin, body: AgentLoginRequest(email: email, password: password))
                let connection = AdminConnection(http: http, token: session.token, ownApp: session.agent.appID)
                do {
                    let result = try await body(connection)
                    await connection.logOut()
                    return result
                } catch {
                    await connection.logOut()
                    throw error
                }
            }
        }
    }

    /// Ends the agent session; a failure is ignored (the session may be gone already, e.g. after
    /// the admin changed their own password, which ends every session).
    private func logOut() async {
        try? await http.call(.session.agentLogout, token: token)
    }

    /// The app to act on: `--app`, else the admin agent's own app (``AdminOptions/requireApp(_:)``
    /// has made sure that one of the two exists).
    func app(_ option: AppOption) throws -> AppID {
        if let id = option.id { return id }
        if let ownApp { return ownApp }
        throw ValidationError("--app is needed with the operator token")
    }

    /// Calls an admin endpoint that takes no body; decodes the JSON answer.
    func call<Response: Decodable>(_ endpoint: Endpoint<Void, Response>) async throws -> Response {
        try await http.call(endpoint, token: token)
    }

    /// Calls an admin endpoint with a JSON body; decodes the JSON answer.
    func call<Body: Encodable, Response: Decodable>(_ endpoint: Endpoint<Body, Response>, body: Body) async throws -> Response {
        try await http.call(endpoint, body: body, token: token)
    }
}
