import Foundation
import ParleyCore
import ParleyKit
import Testing

/// The lazy history: `loadHistoryIndex()` gives what `loadHistory()` implies without the events,
/// and `loadEvents(of:)` gives one conversation's events, for every storage.
struct HistoryIndexTests {
    static let agent = Participant.agent(AgentID.generate(), name: "Bob")
    static let visitor = Participant.visitor(FileStorageTests.visitor, name: "Ann")

    static func event(_ id: ConversationID, _ seq: Int64, _ author: Participant, _ body: EventBody) -> ConversationEvent {
        ConversationEvent(conversationID: id, seq: seq, createdAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(seq)), author: author, body: body)
    }

    static func message(_ id: ConversationID, _ seq: Int64, from author: Participant = agent) -> ConversationEvent {
        event(id, seq, author, .message(.init(clientMessageID: "m\(seq)", text: "text \(seq)")))
    }

    static func read(_ id: ConversationID, _ seq: Int64, upTo readSeq: Int64) -> ConversationEvent {
        event(id, seq, visitor, .read(.init(readSeq: readSeq)))
    }

    /// The index a storage should give: each conversation's figures from its events, as a snapshot
    /// of them counts.
    static func expectedIndex(_ history: StoredHistory) -> [ConversationID: StoredConversationEntry] {
        var entries: [ConversationID: StoredConversationEntry] = [:]
        for id in Set(history.conversations.keys).union(history.events.keys) {
            let events = history.events[id] ?? []
            let snapshot = ConversationSnapshot(id: id, summary: nil, events: events)
            entries[id] = StoredConversationEntry(summary: history.conversations[id], lastSeq: events.last?.seq ?? 0, eventCount: events.count,
                                                  visitorReadSeq: snapshot.readSeq(by: .visitor), unreadCount: snapshot.unreadCount)
        }
        return entries
    }

    @Test(arguments: StorageKind.allCases)
    func theIndex_agreesWithTheWholeHistory_throughReopening_resets_andPartialReads(kind: StorageKind) throws {
        let (storage, reopen) = kind.make()
        let first = FileStorageTests.conversation(), second = FileStorageTests.conversation(), third = ConversationID.generate()
        try storage.saveEpoch("epoch-a")
        try storage.saveConversation(first)
        try storage.saveConversation(second)
        for seq in Int64(1)...6 { try storage.appendEvents([Self.message(first.id, seq)], to: first.id) }
        try storage.appendEvents([Self.read(first.id, 7, upTo: 6)], to: first.id)
        try storage.appendEvents((1...3).map { Self.message(second.id, $0) }, to: second.id)
        try storage.appendEvents((1...2).map { Self.message(third, $0, from: Self.visitor) }, to: third)
        try storage.resetEvents(of: third)
        try storage.appendEvents([Self.message(third, 1)], to: third)
        #expect(try reopen().loadHistoryIndex().conversations == Self.expectedIndex(try reopen().loadHistory()))

        // After a reopen the unread seqs are not known: a read marker among them is still counted right.
        let reopened = reopen()
        _ = try reopened.loadHistoryIndex()
        for seq in Int64(4)...6 { try reopened.appendEvents([Self.message(second.id, seq)], to: second.id) }
        let again = reopen()
        _ = try again.loadHistoryIndex()
        try again.appendEvents([Self.read(second.id, 7, upTo: 4)], to: second.id)
        try again.appendEvents([Self.message(second.id, 8, from: Self.visitor)], to: second.id)
        let history = try reopen().loadHistory()
        let index = try reopen().loadHistoryIndex()
        #expect(index.epoch == "epoch-a")
        #expect(index.conversations == Self.expectedIndex(history))
        #expect(index.conversations[second.id]?.unreadCount == 2)
        #expect(index.conversations[first.id]?.unreadCount == 0)
        #expect(index.conversations[second.id]?.isGapFree == true)
        for id in [first.id, second.id, third] { #expect(try reopen().loadEvents(of: id) == history.events[id] ?? []) }

        try reopened.resetHistory(epoch: "epoch-b")
        let reset = try reopen().loadHistoryIndex()
        #expect(reset.epoch == "epoch-b")
        #expect(reset.conversations == [first.id: StoredConversationEntry(summary: first), second.id: StoredConversationEntry(summary: second)])
        #expect(try reopen().loadEvents(of: first.id).isEmpty)
    }

    @Test(arguments: StorageKind.allCases)
    func aGapInStoredEvents_showsInTheIndex(kind: StorageKind) throws {
        let (storage, reopen) = kind.make()
        let id = ConversationID.generate()
        try storage.appendEvents(FileStorageTests.events(id, 1...2), to: id)
        try storage.appendEvents(FileStorageTests.events(id, 4...5), to: id)
        let entry = try #require(try reopen().loadHistoryIndex().conversations[id])
        #expect(entry.lastSeq == 5 && entry.eventCount == 4 && !entry.isGapFree)
    }

    @Test func fileStorage_startsFromTheIndex_withoutDecodingEvents_andCompactionKeepsIt() throws {
        let directory = FileStorageTests.temporaryDirectory()
        let storage = FileStorage(directory: directory, compactionThreshold: 4 * 1024)
        let id = ConversationID.generate()
        for seq in Int64(1)...40 { try storage.appendEvents([Self.message(id, seq)], to: id) }
        // Resets leave dead records: compaction runs on its own and the index follows the new file.
        for _ in 1...5 {
            try storage.resetEvents(of: id)
            for seq in Int64(1)...20 { try storage.appendEvents([Self.message(id, seq)], to: id) }
        }
        #expect(try FileStorageTests.fileSize(directory.appendingPathComponent("history.log")) < 40 * 800)
        try storage.compact()
        try storage.appendEvents([Self.read(id, 21, upTo: 18)], to: id)
        let history = try FileStorage(directory: directory).loadHistory()
        #expect(history.events[id]?.count == 21)
        #expect(try FileStorage(directory: directory).loadHistoryIndex().conversations == Self.expectedIndex(history))
        #expect(try FileStorage(directory: directory).loadEvents(of: id) == history.events[id])
    }

    @Test func recordsWithoutADigest_fromAnEarlierVersion_areFoldedOnce() throws {
        let directory = FileStorageTests.temporaryDirectory()
        let id = ConversationID.generate()
        // A journal as the previous version wrote it: events records without digests.
        var file = Data("PRLYLOG1".utf8)
        for seq in Int64(1)...3 {
            let payload = Data(#"{"conversation_id":"\#(id)","events":[\#(String(decoding: try ParleyJSON.encode(Self.message(id, seq)), as: UTF8.self))],"kind":"events"}"#.utf8)
            for value in [UInt32(payload.count), FileStorageTests.crc32(payload)] { file.append(contentsOf: withUnsafeBytes(of: value.bigEndian, Array.init)) }
            file.append(payload)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try file.write(to: directory.appendingPathComponent("history.log"))

        let storage = FileStorage(directory: directory)
        #expect(try storage.loadHistoryIndex().conversations[id] == StoredConversationEntry(lastSeq: 3, eventCount: 3, unreadCount: 3))
        try storage.appendEvents([Self.read(id, 4, upTo: 2)], to: id)
        #expect(try FileStorage(directory: directory).loadHistoryIndex().conversations[id]
                == StoredConversationEntry(lastSeq: 4, eventCount: 4, visitorReadSeq: 2, unreadCount: 1))
        #expect(try FileStorage(directory: directory).loadEvents(of: id) == (1...3).map { Self.message(id, $0) } + [Self.read(id, 4, upTo: 2)])
    }
}
