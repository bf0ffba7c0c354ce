import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// Masking on the device: the shared table through `send` (what the outbox stores and the message
/// returned), the app's rules read from the server and kept for the next start, and nothing raw
/// on the wire or on disk.
@Suite(.timeLimit(.minutes(3)))
struct KitMaskingTests {
    /// A client whose server never answers: everything stays on the device.
    func offlineClient(storage: any ParleyStorage) -> ParleyClient {
        var configuration = ParleyConfiguration(serverURL: URL(string: "http://127.0.0.1:9")!, appID: AppID.generate())
        configuration.reconnectPolicy = ReconnectPolicy(initialDelay: .seconds(5), multiplier: 2, maximumDelay: .seconds(10), jitter: 0.1)
        return ParleyClient(configuration: configuration, transport: NIOWebSocketTransport(), storage: storage)
    }

    @Test(arguments: MaskingCases.all)
    func send_masksBeforeTheOutbox_matchingTheSharedTable(_ row: MaskingCase) async throws {
        let storage = MemoryStorage()
        // The rules as a previous run kept them (the defaults need nothing kept).
        if row.rules != .defaults { try storage.saveMaskingRules(row.rules) }
        let client = offlineClient(storage: storage)
        try await client.start()
        let message = try await client.send(row.input, in: ConversationID.generate())
        await client.stop()
        #expect(message.text == row.expected, "what the user sees")
        #expect(try storage.loadOutbox().map(\.text) == [row.expected], "what waits on the device")
    }

    @Test func beforeTheAppsRulesAreKnown_theBuiltInOnesApply() async throws {
        let client = offlineClient(storage: MemoryStorage())
        try await client.start()
        #expect(await client.maskingRules == .defaults)
        let message = try await client.send("card 4111-1111-1111-1111", in: ConversationID.generate())
        #expect(message.text == "card ••••-••••-••••-1111")
        await client.stop()
    }

    /// The app's own rules arrive on the first connection, are kept in storage, and apply on the
    /// next start before any connection; nothing raw is on the wire or in the storage folder.
    @Test func theAppsRules_readFromTheServer_keptAndApplied_nothingRawLeaves() async throws {
        let server = try await TestServer.start()
        let folder = KitHarness(server: server).storageDirectory()
        do {
            let rules = MaskingRules(customRules: [CustomMaskingRule(name: "Orders", pattern: #"ORD-\d{6}"#, replacement: "ORD-••••••")])
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/masking", rules, token: server.adminToken).status == 200)
            let field = FormField(key: "account", kind: .singleLine, isRequired: false, label: ["en": "Account"])
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/forms/pre_chat", Form(kind: .preChat, fields: [field]),
                                               token: server.adminToken).status == 200)

            let wire = WireRecorder()
            var configuration = ParleyConfiguration(serverURL: server.baseURL, appID: server.appID)
            configuration.userName = "Vic 4111 1111 1111 1111"
            configuration.customAttributes = ["iban": "DE89 3704 0044 0532 0130 00"]
            configuration.storage = .directory(folder)
            configuration.reconnectPolicy = KitHarness.fastPolicy
            configuration.httpTransport = RecordingHTTPTransport(recorder: wire)
            let client = ParleyClient(configuration: configuration, transport: RecordingRealtimeTransport(recorder: wire))
            let agent = try await KitHarness(server: server).onlineAgent()
            let agentEvents = await agent.events()
            try await client.start()
            let states = await client.connectionStates()
            _ = try await first(states) { if case .connected = $0 { true } else { false } }
            #expect(try await eventually { await client.maskingRules == rules }, "read from the server on connecting")

            let conversation = try await client.openConversation(subject: "Refund 5500 0000 0000 0004", attributes: ["ssn": "123-45-6789"],
                                                                 formAnswers: ["account": .text("ORD-123456")])
            #expect(conversation.subject == "Refund •••• •••• •••• 0004" && conversation.attributes["ssn"] == "•••-••-6789")
            let sent = try await client.send("Order ORD-654321, card 4242 4242 4242 4242", in: conversation.id)
            #expect(sent.text == "Order ORD-••••••, card •••• •••• •••• 4242", "the visitor sees what was masked")
            let received = try await first(agentEvents) { if case .event(let event) = $0 { event.message?.text.hasPrefix("Order") == true } else { false } }
            guard case .event(let event) = received else { return }
            #expect(event.message?.text == sent.text, "the agent gets the masked text")
            await client.stop()
            await agent.stop()

            // The next start keeps the app's rules before any connection (the server is unreachable now).
            await server.stop()
            var offline = configuration
            offline.httpTransport = nil
            let restarted = ParleyClient(configuration: offline, transport: NIOWebSocketTransport())
            try await restarted.start()
            #expect(await restarted.maskingRules == rules)
            let queued = try await restarted.send("ORD-777777 and 6011 1111 1111 1117", in: conversation.id)
            #expect(queued.text == "ORD-•••••• and •••• •••• •••• 1117")
            await restarted.stop()

            let raw = ["4111 1111 1111 1111", "4111111111111111", "DE89 3704 0044 0532 0130 00", "DE89370400440532013000", "5500 0000 0000 0004",
                       "123-45-6789", "ORD-123456", "ORD-654321", "4242 4242 4242 4242", "ORD-777777", "6011 1111 1111 1117"]
            let sentBytes = wire.bytes
            #expect(!sentBytes.isEmpty)
            var onDisk = Data()
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects.compactMap { $0 as? URL } ?? []
            for file in files { onDisk += (try? Data(contentsOf: file)) ?? Data() }
            #expect(!onDisk.isEmpty)
            for needle in raw {
                #expect(sentBytes.range(of: Data(needle.utf8)) == nil, "\(needle) went over the network")
                #expect(onDisk.range(of: Data(needle.utf8)) == nil, "\(needle) is on the device's disk")
            }
        } catch {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func anAgentsRepliesAndNotes_areMaskedBeforeTheyAreSent() async throws {
        try await withServer { server in
            let agent = try await KitHarness(server: server).onlineAgent()
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            // The only agent online takes it.
            try await waitUntil(timeout: .seconds(10)) {
                try await server.http.get("/v1/conversations/\(conversation.id)", token: visitor.token, as: Conversation.self).state == .assigned
            }
            let reply = try await agent.reply("Your IBAN GB82 WEST 1234 5698 7654 32 is noted", in: conversation.id)
            #expect(reply.message?.text == "Your IBAN GB•• •••• •••• •••• ••54 32 is noted")
            let note = try await agent.addNote("SSN 123-45-6789", in: conversation.id)
            #expect(note.text == "SSN •••-••-6789")
            await agent.stop()
        }
    }
}

/// Every byte a client sent, HTTP bodies and URLs and WebSocket frames alike.
final class WireRecorder: Sendable {
    private let sent = Locked(Data())
    var bytes: Data { sent.withLock { $0 } }
    func record(_ data: Data) { sent.withLock { $0.append(data) } }
}

/// URLSession HTTP that records each request's URL and body first.
struct RecordingHTTPTransport: HTTPTransport {
    let recorder: WireRecorder
    let inner = URLSessionHTTPTransport()

    func send(_ request: URLRequest, pinnedKeys: [PublicKeyPin]) async throws -> (Data, HTTPURLResponse) {
        recorder.record(Data((request.url?.absoluteString ?? "").utf8))
        recorder.record(request.httpBody ?? Data())
        return try await inner.send(request, pinnedKeys: pinnedKeys)
    }
}

/// The NIO WebSocket transport, recording every frame the client sends.
struct RecordingRealtimeTransport: RealtimeTransport {
    let recorder: WireRecorder
    let inner = NIOWebSocketTransport()

    func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel {
        recorder.record(Data(url.absoluteString.utf8))
        return RecordingChannel(inner: try await inner.connect(to: url, headers: headers), recorder: recorder)
    }

    struct RecordingChannel: RealtimeChannel {
        let inner: any RealtimeChannel
        let recorder: WireRecorder
        var incoming: AsyncThrowingStream<String, any Error> { inner.incoming }
        func send(_ text: String) async throws {
            recorder.record(Data(text.utf8))
            try await inner.send(text)
        }
        func close() async { await inner.close() }
    }
}
