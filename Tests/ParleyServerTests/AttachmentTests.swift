import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyStore
import ParleyStoreSQLite
import ParleyTestSupport
import Testing

/// Files in conversations through the API: round trips, the policy's refusals (with nothing
/// stored), isolation, ranges, idempotency.
@Suite(.timeLimit(.minutes(2)))
struct AttachmentTests {
    /// A PNG's signature followed by `count - 8` bytes of a repeating pattern.
    static func png(_ count: Int) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += (0..<max(0, count - 8)).map { UInt8($0 % 251) }
        return Data(bytes)
    }

    /// Posts a file as a client that declares no type would.
    static func upload(_ server: TestServer, _ path: String, _ body: Data, token: String, headers: [String: String] = [:]) async throws -> TestHTTP.Reply {
        try await server.http.request("POST", path, body: body, token: token, headers: ["Content-Type": "application/octet-stream"].merging(headers) { $1 })
    }

    static let pdf = Data("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n".utf8)

    static func path(_ conversation: ConversationID, name: String, id: String, caption: String? = nil) -> String {
        var query = "name=\(name.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+"]))!)&client_message_id=\(id)"
        if let caption { query += "&caption=\(caption.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+"]))!)" }
        return "/v1/conversations/\(conversation)/attachments?\(query)"
    }

    /// Stored blobs, as files in the SQLite store's blob directory.
    static func storedBlobs(_ server: TestServer) throws -> [String] {
        let root = try #require(server.sqlite?.blobs as? FileBlobStore).root
        return (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? [])
            .filter { !$0.hasPrefix("staging") && $0.count == 67 }
    }

    /// A stored row whose file is gone is answered with a 500 before any header, never a 200 whose
    /// body never comes (scripts/faults/FINDINGS.md, F2).
    @Test func aMissingFile_isA500_notAnEmptyDownload() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let reply = try await Self.upload(server, Self.path(conversation.id, name: "doc.pdf", id: "f-gone"), Self.pdf, token: visitor.token)
            let attachment = try #require(try reply.decode(SendMessageResponse.self).event.message?.attachment)
            let root = try #require(server.sqlite?.blobs as? FileBlobStore).root
            for blob in try Self.storedBlobs(server) { try FileManager.default.removeItem(at: root.appendingPathComponent(blob)) }
            let download = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/attachments/\(attachment.id)", token: visitor.token)
            #expect(download.status == 500)
            #expect(try download.decode(ErrorBody.self).error.code == "file_missing")
        }
    }

    @Test func upload_becomesAMessage_andDownloadsByteForByte_wholeAndByRange() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let file = Self.png(300_000)
            let reply = try await Self.upload(server, Self.path(conversation.id, name: "screen shot.png", id: "f-1", caption: "the error"), file, token: visitor.token, headers: ["Content-Type": "image/png"])
            #expect(reply.status == 201)
            let sent = try reply.decode(SendMessageResponse.self)
            let attachment = try #require(sent.event.message?.attachment)
            #expect(attachment.name == "screen shot.png" && attachment.contentType == "image/png" && attachment.size == 300_000)
            #expect(sent.event.message?.text == "the error")
            #expect(attachment.sha256 == SHA256Hex.of(file))

            // The message is in the history like any other, for the visitor and the app's agents.
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=0", token: visitor.token, as: EventPage.self)
            #expect(page.events.contains { $0.message?.attachment == attachment })

            let download = "/v1/conversations/\(conversation.id)/attachments/\(attachment.id)"
            let whole = try await server.http.request("GET", download, token: visitor.token)
            #expect(whole.status == 200 && whole.body == file)
            #expect(whole.headers["content-type"] == "image/png")
            #expect(whole.headers["x-content-type-options"] == "nosniff")
            #expect(whole.headers["content-disposition"] == "attachment; filename=\"screen shot.png\"; filename*=UTF-8''screen%20shot.png")
            #expect(whole.headers["content-security-policy"]?.contains("sandbox") == true)
            let agent = try await server.agent()
            #expect(try await server.http.request("GET", download, token: agent.token).body == file)

            // A download that broke off resumes where it stopped.
            let rest = try await server.http.request("GET", download, token: visitor.token, headers: ["Range": "bytes=100000-"])
            #expect(rest.status == 206 && rest.body == file.subdata(in: 100_000..<300_000))
            #expect(rest.headers["content-range"] == "bytes 100000-299999/300000")
            let tail = try await server.http.request("GET", download, token: visitor.token, headers: ["Range": "bytes=-10"])
            #expect(tail.status == 206 && tail.body == file.suffix(10))
            let beyond = try await server.http.request("GET", download, token: visitor.token, headers: ["Range": "bytes=300000-"])
            #expect(beyond.status == 416 && beyond.headers["content-range"] == "bytes */300000")

            // The same client message id again: the same message, nothing new.
            let again = try await Self.upload(server, Self.path(conversation.id, name: "screen shot.png", id: "f-1", caption: "the error"), file, token: visitor.token)
            #expect(again.status == 200)
            #expect(try again.decode(SendMessageResponse.self).event == sent.event)
            #expect(try Self.storedBlobs(server).count == 1)
        }
    }

    @Test func policyRefusals_storeNothing() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            var policy = AttachmentPolicy()
            policy.maxBytes = 1_000
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/attachments", policy, token: server.adminToken)

            let atLimit = try await Self.upload(server, Self.path(conversation.id, name: "a.png", id: "ok"), Self.png(1_000), token: visitor.token)
            #expect(atLimit.status == 201)
            let cases: [(String, Data, [String: String], Int, String)] = [
                ("over.png", Self.png(1_001), [:], 413, "too_large"),
                ("empty.png", Data(), [:], 400, "bad_request"),
                ("lies.png", Self.pdf, [:], 415, "type_mismatch"),                      // the name says PNG, the bytes PDF
                ("declared.pdf", Self.pdf, ["Content-Type": "image/png"], 415, "type_mismatch"),
                ("page.html", Data("<!DOCTYPE html><script>alert(1)</script>".utf8), [:], 415, "type_not_allowed"),
                ("tool.exe", Data([0x4D, 0x5A, 0x90, 0x00] + [UInt8](repeating: 0, count: 60)), [:], 415, "type_not_allowed"),
                ("../up.png", Self.png(10), [:], 400, "bad_request"),
            ]
            for (index, (name, body, headers, status, code)) in cases.enumerated() {
                let reply = try await Self.upload(server, Self.path(conversation.id, name: name, id: "bad-\(index)"), body, token: visitor.token, headers: headers)
                #expect(reply.status == status, "\(name)")
                #expect(reply.error?.error.code == code, "\(name)")
            }
            // One file stored, one message; no leftovers in staging.
            #expect(try Self.storedBlobs(server).count == 1)
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=0", token: visitor.token, as: EventPage.self)
            #expect(page.events.filter { $0.message != nil }.count == 1)
            let staging = try #require(server.sqlite?.blobs.stagingDirectory)
            #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path).isEmpty)

            policy.isEnabled = false
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/attachments", policy, token: server.adminToken)
            let off = try await Self.upload(server, Self.path(conversation.id, name: "a.png", id: "off"), Self.png(10), token: visitor.token)
            #expect(off.status == 403 && off.error?.error.code == "attachments_disabled")
            let seen = try await server.http.get("/v1/attachments/policy", token: visitor.token, as: AttachmentPolicy.self)
            #expect(seen.isEnabled == false && seen.maxBytes == 1_000)

            let bad = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/attachments",
                                                 AttachmentPolicy(maxBytes: 1 << 40), token: server.adminToken)
            #expect(bad.status == 400 && bad.error?.error.message.contains("max_bytes") == true)
        }
    }

    @Test func otherVisitorsAndOtherAppsAgents_get404_forUploadAndDownload() async throws {
        try await withServer { server in
            let owner = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: owner.token, as: Conversation.self)
            let sent = try await Self.upload(server, Self.path(conversation.id, name: "a.png", id: "f"), Self.png(64), token: owner.token)
                .decode(SendMessageResponse.self)
            let attachment = try #require(sent.event.message?.attachment)
            let stranger = try await server.visitor()
            let (otherApp, _) = try await server.otherApp()
            let foreignAgent = try await server.agent(app: otherApp.app.id)
            for token in [stranger.token, foreignAgent.token] {
                #expect(try await server.http.request("GET", "/v1/conversations/\(conversation.id)/attachments/\(attachment.id)", token: token).status == 404)
                #expect(try await Self.upload(server, Self.path(conversation.id, name: "b.png", id: "x"), Self.png(64), token: token).status == 404)
            }
            // An attachment id of another conversation is not found through this one.
            let other = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: stranger.token, as: Conversation.self)
            #expect(try await server.http.request("GET", "/v1/conversations/\(other.id)/attachments/\(attachment.id)", token: stranger.token).status == 404)
        }
    }

    @Test func transcript_listsTheFileByNameAndSize() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            _ = try await Self.upload(server, Self.path(conversation.id, name: "invoice.pdf", id: "f", caption: "here"), Self.pdf, token: visitor.token)
            let text = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/transcript?format=text", token: visitor.token)
            #expect(String(decoding: text.body, as: UTF8.self).contains("[file: invoice.pdf, \(Self.pdf.count) B]\n    here"))
        }
    }
}
