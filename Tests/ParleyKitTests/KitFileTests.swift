import Foundation
import ParleyCore
import ParleyKit
import ParleyTestSupport
import Testing

/// Files through ParleyKit against the real server: sent through the outbox (exactly once across a
/// restart), checked on the device first, downloaded with progress, resumed, and verified.
@Suite(.timeLimit(.minutes(3)))
struct KitFileTests {
    /// A folder of its own for a test's files (the test removes it).
    static func scratchFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-files-\(UUID().uuidString)")
    }

    /// Whether the conversation's model shows the message as sent.
    static func shows(_ model: ConversationModel, sent id: String) async -> Bool {
        await model.messages.contains { $0.id == id && $0.deliveryState == .sent }
    }

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
            let scratch = Self.scratchFolder()
            defer { try? FileManager.default.removeItem(at: scratch) }
            let (file, bytes) = try Self.pngFile(700_000, in: scratch)

            let pending = try await visitor.sendFile(at: file, caption: "my screen", in: conversation.id)
            #expect(pending.outgoingFile?.contentType == "image/png" && pending.outgoingFile?.size == 700_000)
            try await waitUntil(timeout: .seconds(30)) { await Self.shows(model, sent: pending.id) }
            let sent = try #require(await model.messages.first { $0.id == pending.id })
            let attachment = try #require(sent.attachment)
            #expect(sent.text == "my screen" && attachment.name == "photo.png" && attachment.size == 700_000)
            // Once delivered, the outbox's entry goes, then its copy of the file.
            try await waitUntil {
                (try? FileStorage(directory: storage).loadOutbox().isEmpty) == true
                    && (try? FileManager.default.contentsOfDirectory(atPath: storage.appendingPathComponent("outbox-files").path))?.isEmpty ?? true
            }

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
        let transport = ScriptedUploadTransport(breaking: 1)
        try await Self.sending(50_000, through: transport) { visitor, conversation, model, file in
            let states = await visitor.connectionStates()
            _ = try await first(states) { if case .connected = $0 { true } else { false } }
            let pending = try await visitor.sendFile(at: file, in: conversation)
            // The socket stays up throughout: only the outbox's own retry can send the file again.
            try await waitUntil(timeout: .seconds(30)) { await Self.shows(model, sent: pending.id) }
            #expect(transport.uploads == 2, "the first attempt broke off, the second delivered it")
            #expect(await visitor.state.connectionState == .connected)
        }
    }

    @Test func uploadProgress_onlyGoesForward_andEndsAtTheSize() async throws {
        let transport = ScriptedUploadTransport(reports: 20_000)
        try await Self.sending(120_000, through: transport) { visitor, conversation, model, file in
            let pending = try await visitor.sendFile(at: file, in: conversation)
            let progress = await visitor.uploadProgress(of: pending.id)
            transport.release()  // 20,000 reports as fast as the transport can make them
            var seen: [FileProgress] = []
            for await report in progress { seen.append(report) }
            #expect(!seen.isEmpty && seen.allSatisfy { $0.total == 120_000 })
            let backwards = zip(seen, seen.dropFirst()).filter { $1.completed < $0.completed }.count
            #expect(backwards == 0, "the bar never goes back")
            #expect(seen.last?.completed == 120_000, "the last report is the whole file, before the stream ends")
            try await waitUntil { await Self.shows(model, sent: pending.id) }
        }
    }

    @Test func anObserverComingMidway_hearsWhereTheUploadStands_atOnce() async throws {
        let transport = ScriptedUploadTransport(reports: 2, pausingAfter: 1)
        try await Self.sending(120_000, through: transport) { visitor, conversation, model, file in
            let pending = try await visitor.sendFile(at: file, in: conversation)
            let half = FileProgress(completed: 60_000, total: 120_000), whole = FileProgress(completed: 120_000, total: 120_000)
            let early = await visitor.uploadProgress(of: pending.id)
            #expect(try await first(early) { _ in true } == FileProgress(completed: 0, total: 120_000), "nothing sent yet")
            transport.release()  // half the file, then a pause
            #expect(try await first(early) { _ in true } == half)
            let late = await visitor.uploadProgress(of: pending.id)
            #expect(try await first(late) { _ in true } == half, "where it stands, before another report")
            transport.release()
            #expect(try await first(late) { _ in true } == whole)
            try await waitUntil { await Self.shows(model, sent: pending.id) }
        }
    }

    /// A started visitor whose HTTP is `transport`, with a conversation, its model and a PNG of
    /// `bytes` to send, for `body`; stopped and cleaned up after it.
    static func sending(_ bytes: Int, through transport: ScriptedUploadTransport,
                        _ body: (ParleyClient, ConversationID, ConversationModel, URL) async throws -> Void) async throws {
        try await withServer { server in
            let visitor = KitHarness(server: server).visitor(http: transport)
            try await visitor.start()
            let conversation = try await visitor.openConversation()
            let model = try await visitor.conversation(conversation.id)
            let scratch = scratchFolder()
            defer { try? FileManager.default.removeItem(at: scratch) }
            let (file, _) = try pngFile(bytes, in: scratch)
            try await body(visitor, conversation.id, model, file)
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
            let scratch = Self.scratchFolder()
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

        let scratch = Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (file, bytes) = try Self.pngFile(200_000, in: scratch)
        let pending = try await first.sendFile(at: file, in: conversation.id)
        // The app's own file may go away: the outbox kept a copy.
        try FileManager.default.removeItem(at: file)
        await first.stop()  // the app is killed

        // A copy no outbox entry names (an app killed after its file was delivered, before the copy
        // was deleted) goes at the next start; the pending file's copy stays.
        let stray = storage.appendingPathComponent("outbox-files").appendingPathComponent("delivered-before-the-kill")
        try Data("left behind".utf8).write(to: stray)

        server = try await TestServer.start(restarting: server)
        let second = kit.visitor(storage: storage)
        try await second.start()
        #expect(!FileManager.default.fileExists(atPath: stray.path))
        let model = try await second.conversation(conversation.id)
        try await waitUntil(timeout: .seconds(30)) { await Self.shows(model, sent: pending.id) }
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

