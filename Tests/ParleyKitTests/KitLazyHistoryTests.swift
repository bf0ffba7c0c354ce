import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// A restart reads the conversation list and each conversation's last seq, not the events; a
/// conversation's events are read when it is opened.
@Suite(.timeLimit(.minutes(3)))
struct KitLazyHistoryTests {
    /// A client on a storage, with nothing listening on its server (port 9): it works from storage.
    static func offlineClient(storage: any ParleyStorage) -> ParleyClient {
        var configuration = ParleyConfiguration(serverURL: URL(string: "http://127.0.0.1:9")!, appID: .generate())
        configuration.reconnectPolicy = KitHarness.fastPolicy
        return ParleyClient(configuration: configuration, transport: NIOWebSocketTransport(), storage: storage)
    }

    static func isEventRead(_ call: RecordingStorage.Call) -> Bool {
        switch call {
        case .loadEvents, .loadHistory: true
        default: false
        }
    }

    @Test func restart_resumesExactlyAfterTheLastStoredSeq_whileNoConversationIsRead() async throws {
        let server = try await TestServer.start()
        let kit = KitHarness(server: server)
        let directory = kit.storageDirectory()
        let visitor = kit.visitor(storage: directory)
        try await visitor.start()
        let conversation = try await visitor.openConversation(subject: "resume")
        let other = try await visitor.openConversation(subject: "another")
        let model = try await visitor.conversation(conversation.id)
        let agent = try await kit.onlineAgent()
        try await waitUntil { await model.state == .assigned }
        for index in 1...3 { try await agent.reply("reply \(index)", in: conversation.id) }
        try await waitUntil { await model.messages.count == 3 }
        await visitor.stop()
        let stored = try #require(try FileStorage(directory: directory).loadHistoryIndex().conversations[conversation.id])
        #expect(stored.isGapFree && stored.unreadCount == 3)

        // Missed while the app was closed.
        var missed: Int64 = 0
        for index in 4...5 { missed = try await agent.reply("reply \(index)", in: conversation.id).seq }
        let recording = RecordingStorage(FileStorage(directory: directory))
        let restarted = kit.visitor(store: recording)
        try await restarted.start()
        let newest = missed
        try await waitUntil { recording.appendedSeqs(conversation.id).last == newest }

        // Exactly the missed events, once each, after the stored ones; no events were decoded.
        #expect(recording.appendedSeqs(conversation.id) == Array((stored.lastSeq + 1)...newest))
        #expect(!recording.calls.contains(where: Self.isEventRead))
        // The observable state is published after the event is stored: wait for it, not a moment.
        try await waitUntil { await restarted.state.unreadCount == 5 }
        #expect(await restarted.state.conversations.map(\.id).sorted() == [conversation.id, other.id].sorted())

        let restored = try await restarted.conversation(conversation.id)
        #expect(recording.calls.filter(Self.isEventRead) == [.loadEvents(conversation.id)])
        let messages = await restored.messages
        #expect(messages.map(\.text) == (1...5).map { "reply \($0)" })
        #expect(messages.compactMap(\.seq) == messages.compactMap(\.seq).sorted() && Set(messages.compactMap(\.seq)).count == 5)
        await restarted.stop()
        await agent.stop()
        await server.stop()
    }

    @Test func liveEvents_forAConversationNotReadYet_followTheStoredOnes_whenItIsOpened() async throws {
        let server = try await TestServer.start()
        let kit = KitHarness(server: server)
        let directory = kit.storageDirectory()
        let visitor = kit.visitor(storage: directory)
        try await visitor.start()
        let conversation = try await visitor.openConversation(subject: "live")
        let model = try await visitor.conversation(conversation.id)
        let agent = try await kit.onlineAgent()
        try await waitUntil { await model.state == .assigned }
        for index in 1...2 { try await agent.reply("reply \(index)", in: conversation.id) }
        try await waitUntil { await model.messages.count == 2 }
        await visitor.stop()

        let recording = RecordingStorage(FileStorage(directory: directory))
        let restarted = kit.visitor(store: recording)
        let events = await restarted.events()
        try await restarted.start()
        _ = try await first(events) { if case .connection(.connected) = $0 { true } else { false } }
        // Received while the conversation's stored events are not read: a reply, and the visitor's own message.
        try await agent.reply("reply 3", in: conversation.id)
        let sent = try await restarted.send("from the visitor", in: conversation.id)
        try await waitUntil { await restarted.state.unreadCount == 3 }
        _ = try await first(events) { if case .delivered(let message, _) = $0 { message.id == sent.id } else { false } }
        #expect(!recording.calls.contains(where: Self.isEventRead))

        let restored = try await restarted.conversation(conversation.id)
        let messages = await restored.messages
        #expect(messages.map(\.text) == ["reply 1", "reply 2", "reply 3", "from the visitor"])
        #expect(messages.allSatisfy { $0.deliveryState == .sent })
        let seqs = messages.compactMap(\.seq)
        #expect(seqs == seqs.sorted() && Set(seqs).count == 4)
        // Storage holds the same run, without a gap or a duplicate.
        let storedSeqs = try FileStorage(directory: directory).loadEvents(of: conversation.id).map(\.seq)
        #expect(storedSeqs == Array(1...Int64(storedSeqs.count)) && storedSeqs.last == seqs.last)
        await restarted.stop()
        await agent.stop()
        await server.stop()
    }

    @Test func aGapInAFileStorage_isCutAtStart_soTheResumeFetchesWhatFollows() async throws {
        let directory = FileStorageTests.temporaryDirectory()
        let id = ConversationID.generate()
        let events = FileStorageTests.events(id, 1...5)
        let storage = FileStorage(directory: directory)
        try storage.saveEpoch("epoch-a")
        try storage.saveConversation(FileStorageTests.conversation(id))
        // Seq 3 is missing: its write failed, the next ones did not.
        for event in events where event.seq != 3 { try storage.appendEvents([event], to: id) }

        let client = Self.offlineClient(storage: FileStorage(directory: directory))
        try await client.start()
        #expect(try FileStorage(directory: directory).loadEvents(of: id) == Array(events.prefix(2)))
        #expect(try FileStorage(directory: directory).loadHistoryIndex().conversations[id]?.lastSeq == 2)
        let model = try await client.conversation(id)
        #expect(await model.messages.map(\.seq) == [1, 2])
        await client.stop()
    }

    @Test func aStorageWithOnlyTheEarlierRequirements_stillWorks_readingItsHistoryOnce() async throws {
        let first = ConversationID.generate(), second = ConversationID.generate()
        let events = FileStorageTests.events(first, 1...4)
        let legacy = LegacyStorage(history: StoredHistory(
            epoch: "epoch-a", conversations: [first: FileStorageTests.conversation(first), second: FileStorageTests.conversation(second)],
            events: [first: events, second: FileStorageTests.events(second, 1...3).filter { $0.seq != 2 }]))
        let client = Self.offlineClient(storage: legacy)
        try await client.start()
        let model = try await client.conversation(first)
        #expect(await model.messages.map(\.text) == events.compactMap { $0.message?.text })
        let withGap = try await client.conversation(second)
        #expect(await withGap.messages.map(\.seq) == [1])
        #expect(legacy.history.events[second] == Array(FileStorageTests.events(second, 1...1)))
        #expect(legacy.loads == 1)
        await client.stop()
    }

    // MARK: - The snapshot of a conversation not read yet

    @Test func aSnapshotFromStoredFigures_continues_andAdoptsItsStoredEventsInFront() {
        let id = ConversationID.generate()
        let stored = (1...3).map { HistoryIndexTests.message(id, $0) }
        var snapshot = ConversationSnapshot(id: id, stored: StoredConversationEntry(summary: FileStorageTests.conversation(id), lastSeq: 3, eventCount: 3, unreadCount: 3))
        #expect(!snapshot.isLoaded && snapshot.lastSeq == 3 && snapshot.unreadCount == 3 && snapshot.summary?.lastSeq == 3)
        let isReplayApplied = snapshot.apply(HistoryIndexTests.message(id, 3))
        #expect(!isReplayApplied)
        snapshot.apply(HistoryIndexTests.message(id, 4))
        #expect(snapshot.lastSeq == 4 && snapshot.unreadCount == 4)

        // Storage holds the live event too (it was appended): no duplicate.
        var adopted = snapshot
        var isWhole = adopted.adoptStoredEvents(stored + [HistoryIndexTests.message(id, 4)])
        #expect(isWhole)
        #expect(adopted.isLoaded && adopted.events.map(\.seq) == [1, 2, 3, 4] && adopted.unreadCount == 4)
        // Its write failed: the live event still follows the stored ones.
        adopted = snapshot
        isWhole = adopted.adoptStoredEvents(stored)
        #expect(isWhole)
        #expect(adopted.events.map(\.seq) == [1, 2, 3, 4])
        // Storage lost seq 3: the run ends at 2, and what follows is fetched again.
        adopted = snapshot
        isWhole = adopted.adoptStoredEvents(Array(stored.prefix(2)))
        #expect(!isWhole)
        #expect(adopted.lastSeq == 2)

        // Read up to a seq among unread stored messages: only the events can tell what is left.
        snapshot.apply(HistoryIndexTests.read(id, 5, upTo: 2))
        #expect(snapshot.needsStoredEvents)
        isWhole = snapshot.adoptStoredEvents(stored)
        #expect(isWhole)
        #expect(!snapshot.needsStoredEvents && snapshot.unreadCount == 2)
    }
}

/// A storage written for the earlier protocol: only its original requirements, so the lazy ones
/// are ParleyKit's defaults built on `loadHistory()`.
final class LegacyStorage: ParleyStorage {
    private let state: Locked<(history: StoredHistory, loads: Int)>

    init(history: StoredHistory) {
        state = Locked((history, 0))
    }

    var history: StoredHistory { state.withLock { $0.history } }
    var loads: Int { state.withLock { $0.loads } }

    func loadSecrets() throws -> StoredSecrets? { nil }
    func saveSecrets(_ secrets: StoredSecrets) throws {}
    func loadOutbox() throws -> [OutboxItem] { [] }
    func appendOutbox(_ item: OutboxItem) throws {}
    func updateOutbox(_ item: OutboxItem) throws {}
    func removeOutbox(clientMessageID: String) throws {}
    func loadHistory() throws -> StoredHistory {
        state.withLock { state in
            state.loads += 1
            return state.history
        }
    }
    func appendEvents(_ events: [ConversationEvent], to conversation: ConversationID) throws {
        state.withLock { state in
            for event in events where event.seq > (state.history.events[conversation]?.last?.seq ?? 0) {
                state.history.events[conversation, default: []].append(event)
            }
        }
    }
    func saveConversation(_ conversation: Conversation) throws { state.withLock { $0.history.conversations[conversation.id] = conversation } }
    func saveEpoch(_ epoch: String) throws { state.withLock { $0.history.epoch = epoch } }
    func resetEvents(of conversation: ConversationID) throws { state.withLock { $0.history.events[conversation] = nil } }
    func resetHistory(epoch: String?) throws {
        state.withLock { state in
            state.history.epoch = epoch
            state.history.events = [:]
        }
    }
}
