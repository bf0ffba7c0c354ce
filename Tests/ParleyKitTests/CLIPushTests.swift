import Crypto
import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// `parley admin push …` against a real server: set-apns from a .p8 file (shown as its ids, the key
/// never again), show, previews off, keys the server refuses (its words, exit 1), deliveries, remove.
struct CLIPushTests {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let topic = "com.example.parley"

    func parley(_ server: TestServer, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try ChildProcess("parley", arguments: ["admin", "push"] + arguments + [
            "--server", server.baseURL.absoluteString, "--token", server.adminToken, "--app", server.appID.rawValue])
        let status = try await process.waitForExit()
        return (status, process.printed)
    }

    func settings(_ output: String) throws -> PushSettings {
        try ParleyJSON.decode(PushSettings.self, from: Data(output.utf8))
    }

    /// A file in a fresh directory, removed with it by the caller.
    func write(_ text: String, named name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func adminPush_setAPNsShowPreviewsRemove_neverPrintsTheKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-push-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = P256.Signing.PrivateKey().pemRepresentation
        // The key's base64, which must never come back.
        let keyText = String(pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined().prefix(40))
        let keyFile = try write(pem, named: "AuthKey_\(Self.keyID).p8", in: directory)
        let apnsArguments = ["set-apns", "--team-id", Self.teamID, "--key-id", Self.keyID, "--topic", Self.topic]

        try await withServer { server in
            let empty = try await parley(server, ["show"])
            #expect(empty.status == 0 && empty.output.contains("not set up") && empty.output.contains("previews: on"), "\(empty.output)")

            let set = try await parley(server, apnsArguments + ["--key-file", keyFile, "--json"])
            #expect(set.status == 0, "\(set.output)")
            let apns = try settings(set.output).apns
            #expect(apns?.teamID == Self.teamID && apns?.keyID == Self.keyID && apns?.topic == Self.topic)
            #expect(!set.output.contains("PRIVATE KEY") && !set.output.contains(keyText))

            for arguments in [["show"], ["show", "--json"]] {
                let shown = try await parley(server, arguments)
                #expect(shown.status == 0 && shown.output.contains(Self.keyID) && shown.output.contains(Self.topic), "\(shown.output)")
                #expect(!shown.output.contains("PRIVATE KEY") && !shown.output.contains(keyText), "the key is never shown")
            }

            let off = try await parley(server, ["previews", "off", "--json"])
            #expect(off.status == 0, "\(off.output)")
            #expect(try settings(off.output).previews == false)
            #expect(try await parley(server, ["show"]).output.contains("previews: off"))
            #expect(try await parley(server, ["previews", "maybe"]).status != 0)

            // Keys the server refuses: its words, exit 1, nothing changed.
            let badKey = try write("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n", named: "bad.p8", in: directory)
            let refused = try await parley(server, apnsArguments + ["--key-file", badKey])
            #expect(refused.status == 1 && refused.output.contains("private_key: not a P-256 private key"), "\(refused.output)")
            let account = try write(#"""
                {"type": "service_account", "project_id": "parley-push-test", "private_key_id": "0123",
                 "private_key": "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
                 "client_email": "parley@parley-push-test.iam.gserviceaccount.com"}
                """#, named: "account.json", in: directory)
            let refusedAccount = try await parley(server, ["set-fcm", "--service-account", account])
            #expect(refusedAccount.status == 1 && refusedAccount.output.contains("service_account.private_key"), "\(refusedAccount.output)")
            let notJSON = try write("{not json", named: "broken.json", in: directory)
            let broken = try await parley(server, ["set-fcm", "--service-account", notJSON])
            #expect(broken.status != 0 && broken.output.contains("--service-account"), "\(broken.output)")
            let unchanged = try settings(try await parley(server, ["show", "--json"]).output)
            #expect(unchanged.apns?.keyID == Self.keyID && unchanged.fcm == nil && unchanged.previews == false)

            let deliveries = try await parley(server, ["deliveries", "--limit", "10"])
            #expect(deliveries.status == 0 && deliveries.output.contains("no pushes yet"), "\(deliveries.output)")
            let deliveriesJSON = try await parley(server, ["deliveries", "--json"])
            #expect(try ParleyJSON.decode(PushDeliveryList.self, from: Data(deliveriesJSON.output.utf8)).deliveries.isEmpty)

            let removed = try await parley(server, ["remove", "apns", "--json"])
            #expect(removed.status == 0, "\(removed.output)")
            #expect(try settings(removed.output).apns == nil)
            #expect(try await parley(server, ["show"]).output.contains("apns:     not set up"))
            #expect(try await parley(server, ["remove", "webpush"]).status != 0)
        }
    }
}
