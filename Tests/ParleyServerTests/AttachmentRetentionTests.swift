import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyStore
import ParleyStorePostgres
import ParleyTestSupport
import Testing

/// Retention and the sweep of leftover bytes, on both stores, on a clock the test moves; and a
/// file uploaded on one node is served by the other.
@Suite(.timeLimit(.minutes(2)))
struct AttachmentRetentionTests {
    /// Runs `body` on a SQLite server, then on a PostgreSQL one when a database is configured.
    static func onEachStore(clock: ManualClock, _ body: (TestServer) async throws -> Void) async throws {
        // The sweep runs by hand: a background one would wake whenever the test moves the clock.
        let configure: (inout ServerConfiguration) -> Void = { $0.clock = clock; $0.attachmentSweepInterval = nil }
        for store in TestStore.available { try await withServer(on: store, configure: configure, body) }
    }

    @Test func filesPastRetention_areRemoved_andLeftoverBytesSwept_onBothStores() async throws {
        let clock = ManualClock(start: Date())
        try await Self.onEachStore(clock: clock) { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let octets = ["Content-Type": "application/octet-stream"]
            let old = try await server.http.request("POST", "/v1/conversations/\(conversation.id)/attachments?name=old.txt&client_message_id=old",
                                                    body: Data("old notes\n".utf8), token: visitor.token, headers: octets)
                .decode(SendMessageResponse.self)
            let set = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/attachments", AttachmentPolicy(retentionDays: 1), token: server.adminToken)
            #expect(set.status == 200, "\(String(decoding: set.body, as: UTF8.self))")
            clock.advance(by: 2 * 86_400)
            let fresh = try await server.http.request("POST", "/v1/conversations/\(conversation.id)/attachments?name=new.txt&client_message_id=new",
                                                      body: Data("new notes\n".utf8), token: visitor.token, headers: octets)
                .decode(SendMessageResponse.self)
            // Bytes stored and never committed: an upload cut off between the two.
            let staging = server.store.blobs.stagingDirectory
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            let stray = staging.appendingPathComponent("stray.part")
            try Data("stray".utf8).write(to: stray)
            try await server.store.blobs.put(stagedFile: stray, sha256: UploadMeter.hex(of: Data("stray".utf8)), size: 5, at: clock.now())
            let stored = try await server.store.blobs.hashes(storedBefore: .distantFuture)
            #expect(stored.count == 3, "\(stored)")

            // The expired file's bytes go at once (stored long ago); the stray ones, stored just now,
            // stay within the grace time (an upload may be about to commit them), then go.
            let first = try await server.parley.attachmentJanitor.sweep()
            #expect(first.expired == 1 && first.blobsDeleted == 1)
            #expect(try await server.store.blobs.hashes(storedBefore: .distantFuture).count == 2)
            clock.advance(by: 2 * 3_600)
            let second = try await server.parley.attachmentJanitor.sweep()
            #expect(second.expired == 0 && second.blobsDeleted == 1)

            let oldFile = try #require(old.event.message?.attachment), newFile = try #require(fresh.event.message?.attachment)
            let gone = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/attachments/\(oldFile.id)", token: visitor.token)
            #expect(gone.status == 410 && gone.error?.error.code == "attachment_removed")
            let kept = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/attachments/\(newFile.id)", token: visitor.token)
            #expect(kept.status == 200 && kept.body == Data("new notes\n".utf8))
            #expect(try await server.store.blobs.hashes(storedBefore: .distantFuture).count == 1)
            // The message stays in the history, saying what the file was.
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=0", token: visitor.token, as: EventPage.self)
            #expect(page.events.compactMap(\.message?.attachment?.name) == ["old.txt", "new.txt"])
        }
    }

    @Test(.enabled(if: nodeTestDatabaseURL != nil, "set PARLEY_TEST_DATABASE_URL=postgres://… (scripts/test-postgres.sh start)"))
    func aFileUploadedOnOneNode_isServedByTheOther_wholeAndByRange() async throws {
        try await withTwoNodes { one, two, _ in
            let visitor = try await one.visitor()
            let conversation = try await one.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            // Over two chunks of the database's 1 MiB, so a range crosses a chunk's edge.
            var bytes = Data([0x25, 0x50, 0x44, 0x46, 0x2D])
            bytes += Data((0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let sent = try await one.http.request("POST", "/v1/conversations/\(conversation.id)/attachments?name=big.pdf&client_message_id=big",
                                                  body: bytes, token: visitor.token, headers: ["Content-Type": "application/pdf"])
                .decode(SendMessageResponse.self)
            let file = try #require(sent.event.message?.attachment)
            let path = "/v1/conversations/\(conversation.id)/attachments/\(file.id)"
            #expect(try await two.http.request("GET", path, token: visitor.token).body == bytes)
            let part = try await two.http.request("GET", path, token: visitor.token, headers: ["Range": "bytes=1048000-1049999"])
            #expect(part.status == 206 && part.body == bytes.subdata(in: 1_048_000..<1_050_000))
        }
    }
}
