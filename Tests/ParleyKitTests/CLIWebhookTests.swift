import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// `parley admin webhooks …` against a real server: create (the secret printed once), list,
/// update, disable and enable, rotate, deliveries, delete.
struct CLIWebhookTests {
    func parley(_ server: TestServer, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try ChildProcess("parley", arguments: ["admin", "webhooks"] + arguments + [
            "--server", server.baseURL.absoluteString, "--token", server.adminToken, "--app", server.appID.rawValue])
        let status = try await process.waitForExit()
        return (status, process.printed)
    }

    @Test func adminWebhooks_createListUpdateRotateDelete() async throws {
        try await withServer { server in
            let created = try await parley(server, ["create", "--url", "http://127.0.0.1:9/hook", "--event", "message.created", "--json"])
            #expect(created.status == 0, "\(created.output)")
            let endpoint = try ParleyJSON.decode(WebhookEndpointWithSecret.self, from: Data(created.output.utf8))
            #expect(endpoint.secret.hasPrefix("whsec_") && endpoint.endpoint.events == [.messageCreated])
            let id = endpoint.endpoint.id.rawValue

            let listed = try await parley(server, ["list"])
            #expect(listed.status == 0 && listed.output.contains(id) && listed.output.contains("message.created"))
            #expect(!listed.output.contains(endpoint.secret))

            let disabled = try await parley(server, ["update", "--webhook", id, "--disable", "--all-events"])
            #expect(disabled.status == 0 && disabled.output.contains("disabled by an admin"))
            let enabled = try await parley(server, ["enable", "--webhook", id, "--json"])
            #expect(try ParleyJSON.decode(WebhookEndpoint.self, from: Data(enabled.output.utf8)).isEnabled)
            #expect(try ParleyJSON.decode(WebhookEndpoint.self, from: Data(enabled.output.utf8)).events.isEmpty)

            let rotated = try await parley(server, ["rotate-secret", "--webhook", id])
            #expect(rotated.status == 0 && rotated.output.contains("whsec_") && !rotated.output.contains(endpoint.secret))
            #expect(try await parley(server, ["deliveries", "--webhook", id]).status == 0)
            #expect(try await parley(server, ["create", "--url", "https://example.com", "--event", "nope"]).status != 0)
            #expect(try await parley(server, ["delete", "--webhook", id]).output.contains("deleted"))
            #expect(try await parley(server, ["list", "--json"]).output.contains(#""webhooks":[]"#))
        }
    }
}
