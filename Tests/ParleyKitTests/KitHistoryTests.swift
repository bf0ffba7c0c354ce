import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// A storage that forwards to another and records the changes the client asks for.
final class RecordingStorage: ParleyStorage {
    enum Call: Hashable, Sendable {
        case appendEvents(ConversationID, seqs: [Int64])
        case saveConversation(ConversationID)
        case saveEpoch(String)
        case resetEvents(ConversationID)
        case resetHistory(String?)
        case appendOutbox(String)
        case updateOutbox(String)
        case removeOutbox(String)
        case loadHistory
        case loadHistoryIndex
        case loadEvents(ConversationID)
    }

    let base: any ParleyStorage
    private let recorded = Locked<[Call]>([])

    init(_ base: any ParleyStorage) {
        self.base = base
    }

    var calls: [Call] { recorded.withLock { $0 } }

    private func record(_ call: Call) { recorded.withLock { $0.append(call) } }

    func loadSecrets() throws -> StoredSecrets? { try base.loadSecrets() }
    func saveSecrets(_ secrets: StoredSecrets) throws { try base.saveSecrets(secrets) }
    func loadOutbox() throws -> [OutboxItem] { try base.loadOutbox() }
    func appendOutbox(_ item: OutboxItem) throws {
        record(.appendOutbox(item.clientMessageID))
        try base.appendOutbox(item)
    }
    func updateOutbox(_ item: OutboxItem) throws {
        record(.updateOutbox(item.clientMessageID))
        try base.updateOutbox(item)
    }
    func removeOutbox(clientMessageID: String) throws {
        record(.removeOutbox(clientMessageID))
        try base.removeOutbox(clientMessageID: clientMessageID)
    }
    func loadHistory() throws -> StoredHistory {
        record(.loadHistory)
        return try base.loadHistory()
    }
    func loadHistoryIndex() throws -> StoredHistoryIndex {
        record(.loadHistoryIndex)
        return try base.loadHistoryIndex()
    }
    func loadEvents(of conversation: ConversationID) throws -> [ConversationEvent] {
        record(.loadEvents(conversation))
        return try base.loadEvents(of: conversation)
    }
    /// The seqs appended to a conversation, in the order they were appended.
    func appendedSeqs(_ id: ConversationID) -> [Int64] {
        calls.flatMap { call -> [Int64] in
            if case .appendEvents(id, let seqs) = call { return seqs }
            return []
        }
    }
    func appendEvents(_ events: [ConversationEvent], to conversation: ConversationID) throws {
        record(.appendEvents(conversation, seqs: events.map(\.seq)))
        try base.appendEvents(events, to: conversation)
    }
    func saveConversation(_ conversation: Conversation) throws {
        record(.saveConversation(conversation.id))
        try base.saveConversation(conversation)
    }
    func saveEpoch(_ epoch: String) throws {
        record(.saveEpoch(epoch))
        try base.saveEpoch(epoch)
    }
    func resetEvents(of conversation: ConversationID) throws {
        record(.resetEvents(conversation))
        try base.resetEvents(of: conversation)
    }
    func resetHistory(epoch: String?) throws {
        record(.resetHistory(epoch))
        try base.resetHistory(epoch: epoch)
    }
}

@Suite(.timeLimit(.minutes(3)))
struct KitHistoryTests {
    @Test func eachReceivedEvent_isAppendedOnItsOwn_andARestartedClientShowsTheHistoryOffline() async throws {
        let server = try await TestServer.start()
        let kit = KitHarness(server: server)
        let directory = kit.storageDirectory()
        let recording = RecordingStorage(FileStorage(directory: directory))
        let visitor = kit.visitor(store: recording)
        try await visitor.start()
        let conversation = try await visitor.openConversation(subject: "history")
        let model = try await visitor.conversation(conversation.id)
        let agent = try await kit.onlineAgent()
        try await waitUntil { await model.state == .assigned }
        for index in 1...5 { try await agent.reply("reply \(index)", in: conversation.id) }
        try await visitor.send("from the visitor", in: conversation.id)
        let texts = (1...5).map { "reply \($0)" } + ["from the visitor"]
        try await waitUntil {
            let messages = await model.messages
            return messages.map(\.text) == texts && messages.allSatisfy { $0.deliveryState == .sent }
        }
        let sentID = try #require(await model.messages.last?.id)
        await visitor.stop()
        await agent.stop()

        // Every event was stored in a call of its own, in seq order, none twice; the epoch once.
        let calls = recording.calls
        let appended = calls.compactMap { call -> [Int64]? in
            if case .appendEvents(let id, let seqs) = call, id == conversation.id { return seqs }
            return nil
        }
        #expect(appended.allSatisfy { $0.count == 1 })
        let seqs = appended.flatMap { $0 }
        #expect(!seqs.isEmpty && seqs == Array(1...Int64(seqs.count)))
        #expect(calls.filter { if case .saveEpoch = $0 { true } else { false } }.count == 1)
        #expect(calls.contains(.appendOutbox(sentID)))
        #expect(calls.contains(.removeOutbox(sentID)))
        await server.stop()

        // With the server gone, a new client on the same folder shows the conversation from storage.
        let restarted = kit.visitor(storage: directory)
        try await restarted.start()
        let restored = try await restarted.conversation(conversation.id)
        #expect(await restored.messages.map(\.text) == texts)
        #expect(await restored.state == .assigned)
        await restarted.stop()
    }

    @Test func aGapInTheStoredEvents_isCutAtStart_soTheResumeFetchesWhatFollows() async throws {
        let id = ConversationID.generate()
        let events = FileStorageTests.events(id, 1...5)
        // Seq 3 is missing: its write failed, the next ones did not.
        let storage = MemoryStorage(history: StoredHistory(epoch: "epoch-a", conversations: [id: FileStorageTests.conversation(id)],
                                                           events: [id: events.filter { $0.seq != 3 }]))
        // Nothing listens on port 9: the client works offline, from storage.
        var configuration = ParleyConfiguration(serverURL: URL(string: "http://127.0.0.1:9")!, appID: .generate())
        configuration.reconnectPolicy = KitHarness.fastPolicy
        let client = ParleyClient(configuration: configuration, transport: NIOWebSocketTransport(), storage: storage)
        try await client.start()
        let model = try await client.conversation(id)
        #expect(await model.messages.map(\.seq) == [1, 2])
        #expect(try storage.loadHistory().events[id] == Array(events.prefix(2)))
        await client.stop()
    }
}
