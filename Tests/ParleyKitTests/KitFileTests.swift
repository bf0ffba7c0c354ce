import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// Files through ParleyKit against the real server: sent through the outbox (exactly once across a
/// restart), checked on the device first, downloaded with progress, resumed, and verified.
@Suite(.timeLimit(.minutes(3)))
struct KitFileTests {
    static func pngFile(_ bytes: Int, in folder: URL, name: String = "photo.png") throws -> (URL, Data) {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data += Data((0..<(bytes - 8)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return (url, data)
    }

    @Test func aFileSent_isDeliveredOnce_andDownloadsWithProgress_andResumes() async throws {
        try await withServer { server in
            let kit = KitHarness(server: server)
            let storage = kit.storageDirectory()
            let visitor = kit.visitor(storage: storage)
            try await visitor.start()
            let conversation = try await visitor.openConversation(subject: "files")
            let model = try await visitor.conversation(conversation.id)
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("parley-files-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let (file, bytes) = try Self.pngFile(700_000, in: scratch)

            let pending = try await visitor.sendFile(at: file, caption: "my screen", in: conversation.id)
            #expect(pending.outgoingFile?.contentType == "image/png" && pending.outgoingFile?.size == 700_000)
            try await waitUntil(timeout: .seconds(30)) { await model.messages.contains { $0.id == pending.id && $0.deliveryState == .sent } }
            let sent = try #require(await model.messages.first { $0.id == pending.id })
            let attachment = try #require(sent.attachment)
            #expect(sent.text == "my screen" && attachment.name == "photo.png" && attachment.size == 700_000)
            // The outbox's copy is gone once delivered.
            try await waitUntil { (try? FileStorage(directory: storage).loadOutbox().isEmpty) == true }
            #expect((try? FileManager.default.contentsOfDirectory(atPath: storage.appendingPathComponent("outbox-files").path))?.isEmpty ?? true)

            // Download, with progress that ends at the size.
            let destination = scratch.appendingPathComponent("downloaded.png")
            var last = FileProgress(completed: 0, total: 0)
            for try await progress in await visitor.download(attachment, in: conversation.id, to: destination) { last = progress }
            #expect(last == FileProgress(completed: 700_000, total: 700_000))
            #expect(try Data(contentsOf: destination) == bytes)

            // A download that broke off: the part already there is kept and the rest fetched.
            let again = scratch.appendingPathComponent("again.png")
            try bytes.prefix(300_000).write(to: again.appendingPathExtension("part"))
            var first: FileProgress?
            for try await progress in await visitor.download(attachment, in: conversation.id, to: again) where first == nil { first = progress }
            #expect(first?.completed == 300_000)
            #expect(try Data(contentsOf: again) == bytes)

            // A damaged part is refused, not handed over.
            let damaged = scratch.appendingPathComponent("damaged.png")
            try Data(repeating: 0, count: 699_999).write(to: damaged.appendingPathExtension("part"))
            await #expect(throws: ParleyError.self) {
                for try await _ in await visitor.download(attachment, in: conversation.id, to: damaged) {}
            }
            #expect(!FileManager.default.fileExists(atPath: damaged.path))
            await visitor.stop()
        }
    }

    @Test func anUploadThatBreaksOff_isSentAgain_withoutANewConnection() async throws {
        try await withServer { server in
            let kit = KitHarness(server: server)
            var configuration = ParleyConfiguration(serverURL: server.baseURL, appID: server.appID)
            configuration.storage = .directory(kit.storageDirectory())
            configuration.reconnectPolicy = KitHarness.fastPolicy
            let transport = UploadBreakingTransport()
            configuration.httpTransport = transport
            let visitor = ParleyClient(configuration: configuration, transport: NIOWebSocketTransport())
            try await visitor.start()
            let states = await visitor.connectionStates()
            _ = try await first(states) { if case .connected = $0 { true } else { false } }
            let conversation = try await visitor.openConversation()
            let model = try await visitor.conversation(conversation.id)
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("parley-files-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let (file, _) = try Self.pngFile(50_000, in: scratch)

            let pending = try await visitor.sendFile(at: file, in: conversation.id)
            // The socket stays up throughout: only the outbox's own retry can send the file again.
            try await waitUntil(timeout: .seconds(30)) { await model.messages.contains { $0.id == pending.id && $0.deliveryState == .sent } }
            #expect(transport.uploads == 2, "the first attempt broke off, the second delivered it")
            #expect(await visitor.state.connectionState == .connected)
            await visitor.stop()
        }
    }

    @Test func theDevice_refusesWhatThePolicyRefuses_beforeSending() async throws {
        try await withServer { server in
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/attachments", AttachmentPolicy(maxBytes: 1_000), token: server.adminToken)
            let kit = KitHarness(server: server)
            let visitor = kit.visitor(storage: kit.storageDirectory())
            try await visitor.start()
            let conversation = try await visitor.openConversation()
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("parley-files-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let (big, _) = try Self.pngFile(1_001, in: scratch)
            await #expect(throws: ParleyError.self) { try await visitor.sendFile(at: big, in: conversation.id) }
            let (liar, _) = try Self.pngFile(100, in: scratch, name: "report.pdf")
            await #expect(throws: ParleyError.self) { try await visitor.sendFile(at: liar, in: conversation.id) }
            let messages = await (try visitor.conversation(conversation.id)).messages
            #expect(messages.isEmpty)
            await visitor.stop()
        }
    }

    @Test func aFileAcceptedWhileTheServerIsDown_arrivesOnce_afterTheAppRestarts() async throws {
        var server = try await TestServer.start()
        let kit = KitHarness(server: server)
        let storage = kit.storageDirectory()
        let first = kit.visitor(storage: storage)
        try await first.start()
        let conversation = try await first.openConversation()
        try await waitUntil { await first.state.connectionState == .connected }
        _ = try await first.attachmentPolicy()
        await server.stop(keepFiles: true)
        try await waitUntil { await first.state.connectionState != .connected }

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("parley-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (file, bytes) = try Self.pngFile(200_000, in: scratch)
        let pending = try await first.sendFile(at: file, in: conversation.id)
        // The app's own file may go away: the outbox kept a copy.
        try FileManager.default.removeItem(at: file)
        await first.stop()  // the app is killed

        server = try await TestServer.start(restarting: server)
        let second = kit.visitor(storage: storage)
        try await second.start()
        let model = try await second.conversation(conversation.id)
        try await waitUntil(timeout: .seconds(30)) { await model.messages.contains { $0.id == pending.id && $0.deliveryState == .sent } }
        let token = try await server.visitor(try #require(FileStorage(directory: storage).loadSecrets()).deviceID).token
        let page = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=0", token: token, as: EventPage.self)
        let files = page.events.compactMap(\.message?.attachment)
        #expect(files.count == 1)
        let download = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/attachments/\(try #require(files.first).id)", token: token)
        #expect(download.body == bytes)
        await second.stop()
        await server.stop()
    }
}

/// URLSession's HTTP, whose first file upload fails as a dropped connection would.
final class UploadBreakingTransport: HTTPTransport {
    private let inner = URLSessionHTTPTransport()
    private let attempts = Locked(0)

    /// The uploads tried so far.
    var uploads: Int { attempts.withLock { $0 } }

    func send(_ request: URLRequest, pinnedKeys: [PublicKeyPin]) async throws -> (Data, HTTPURLResponse) {
        try await inner.send(request, pinnedKeys: pinnedKeys)
    }

    func upload(_ request: URLRequest, fromFile file: URL, pinnedKeys: [PublicKeyPin], progress: @escaping @Sendable (Int64) -> Void) async throws
        -> (Data, HTTPURLResponse) {
        let attempt = attempts.withLock { count in
            count += 1
            return count
        }
        if attempt == 1 { throw URLError(.networkConnectionLost) }
        return try await inner.upload(request, fromFile: file, pinnedKeys: pinnedKeys, progress: progress)
    }
}
