import Crypto
import Foundation
import ParleyCore
import ParleyKit
import Testing

/// The storages ParleyKit ships, each made fresh, for the tests every storage must pass.
enum StorageKind: String, CaseIterable, Sendable {
    case file, memory

    /// A fresh storage and a way to "reopen" it: a new instance on the same directory, or the same
    /// memory instance.
    func make() -> (storage: any ParleyStorage, reopen: @Sendable () -> any ParleyStorage) {
        switch self {
        case .file:
            let directory = FileStorageTests.temporaryDirectory()
            return (FileStorage(directory: directory), { FileStorage(directory: directory) })
        case .memory:
            let storage = MemoryStorage()
            return (storage, { storage })
        }
    }
}

struct FileStorageTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-storage-\(UUID().uuidString)")
    }

    static let visitor = VisitorID.generate()

    static func conversation(_ id: ConversationID = .generate(), subject: String = "Order 42", lastSeq: Int64 = 0) -> Conversation {
        Conversation(id: id, appID: .generate(), queueID: .generate(), visitorID: visitor, subject: subject, attributes: ["plan": "pro"],
                     state: .queued, agentID: nil, lastSeq: lastSeq, createdAt: Date(timeIntervalSince1970: 1_800_000_000),
                     updatedAt: Date(timeIntervalSince1970: 1_800_000_000), queuedAt: Date(timeIntervalSince1970: 1_800_000_000))
    }

    static func events(_ conversation: ConversationID, _ seqs: ClosedRange<Int64>, text: String = "hello") -> [ConversationEvent] {
        seqs.map { seq in
            ConversationEvent(conversationID: conversation, seq: seq, createdAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(seq)),
                              author: .visitor(visitor, name: "Ann"), body: .message(.init(clientMessageID: "m\(seq)", text: "\(text) \(seq)")))
        }
    }

    static func item(_ id: String, _ conversation: ConversationID, failure: String? = nil) -> OutboxItem {
        OutboxItem(clientMessageID: id, conversationID: conversation, text: "text of \(id)", createdAt: Date(timeIntervalSince1970: 1_800_000_100), failure: failure)
    }

    static func fileSize(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    }

    // MARK: - Every storage

    @Test(arguments: StorageKind.allCases)
    func historyAndOutbox_roundTrip_throughReopening(kind: StorageKind) throws {
        let (storage, reopen) = kind.make()
        #expect(try storage.loadSecrets() == nil)
        #expect(try storage.loadOutbox().isEmpty)
        #expect(try storage.loadHistory() == StoredHistory())

        let first = Self.conversation(), second = Self.conversation(subject: "Refund")
        let secrets = StoredSecrets(deviceID: "device-1", token: "token", tokenExpiresAt: Date(timeIntervalSince1970: 1_900_000_000), visitorID: Self.visitor)
        try storage.saveSecrets(secrets)
        try storage.saveEpoch("epoch-a")
        try storage.saveConversation(first)
        try storage.saveConversation(second)
        try storage.appendEvents(Self.events(first.id, 1...3), to: first.id)
        try storage.appendEvents(Self.events(first.id, 4...4), to: first.id)
        try storage.appendEvents(Self.events(second.id, 1...2), to: second.id)
        var renamed = first
        renamed.subject = "Order 43"
        try storage.saveConversation(renamed)

        let a = Self.item("a", first.id), b = Self.item("b", first.id), c = Self.item("c", second.id)
        try storage.appendOutbox(a)
        try storage.appendOutbox(b)
        try storage.appendOutbox(c)
        let failedB = Self.item("b", first.id, failure: "too long")
        try storage.updateOutbox(failedB)
        try storage.removeOutbox(clientMessageID: "a")
        try storage.removeOutbox(clientMessageID: "nobody")
        try storage.updateOutbox(Self.item("nobody", first.id))

        let reopened = reopen()
        #expect(try reopened.loadSecrets() == secrets)
        #expect(try reopened.loadOutbox() == [failedB, c])
        let history = try reopened.loadHistory()
        #expect(history == StoredHistory(epoch: "epoch-a", conversations: [first.id: renamed, second.id: second],
                                         events: [first.id: Self.events(first.id, 1...4), second.id: Self.events(second.id, 1...2)]))
    }

    @Test(arguments: StorageKind.allCases)
    func appendEvents_ignoresEventsNotAboveTheLastStoredSeq(kind: StorageKind) throws {
        let (storage, reopen) = kind.make()
        let id = ConversationID.generate()
        try storage.appendEvents(Self.events(id, 1...5), to: id)
        try storage.appendEvents(Self.events(id, 4...7, text: "replayed"), to: id)
        let expected = Self.events(id, 1...5) + Self.events(id, 6...7, text: "replayed")
        #expect(try reopen().loadHistory().events[id] == expected)
    }

    @Test(arguments: StorageKind.allCases)
    func resetHistory_onAnEpochChange_forgetsEveryEvent_keepsSummaries(kind: StorageKind) throws {
        let (storage, reopen) = kind.make()
        let first = Self.conversation(), second = Self.conversation()
        try storage.saveEpoch("epoch-a")
        try storage.saveConversation(first)
        try storage.saveConversation(second)
        try storage.appendEvents(Self.events(first.id, 1...10), to: first.id)
        try storage.appendEvents(Self.events(second.id, 1...3), to: second.id)

        try storage.resetHistory(epoch: "epoch-b")
        var history = try reopen().loadHistory()
        #expect(history.epoch == "epoch-b")
        #expect(history.events.isEmpty)
        #expect(history.conversations == [first.id: first, second.id: second])

        // The replay from the new database starts at seq 1 again.
        try storage.appendEvents(Self.events(first.id, 1...2, text: "new"), to: first.id)
        history = try reopen().loadHistory()
        #expect(history.events == [first.id: Self.events(first.id, 1...2, text: "new")])
    }

    @Test(arguments: StorageKind.allCases)
    func resetEvents_forgetsOneConversation_only(kind: StorageKind) throws {
        let (storage, reopen) = kind.make()
        let first = ConversationID.generate(), second = ConversationID.generate()
        try storage.saveEpoch("epoch-a")
        try storage.appendEvents(Self.events(first, 1...4), to: first)
        try storage.appendEvents(Self.events(second, 1...2), to: second)
        try storage.resetEvents(of: first)
        try storage.appendEvents(Self.events(first, 1...1, text: "replay"), to: first)
        let history = try reopen().loadHistory()
        #expect(history.epoch == "epoch-a")
        #expect(history.events == [first: Self.events(first, 1...1, text: "replay"), second: Self.events(second, 1...2)])
    }

    // MARK: - File journals

    @Test func outbox_survivesReopening_inOrder_andAnUpdateKeepsItsPlace() throws {
        let directory = Self.temporaryDirectory()
        let id = ConversationID.generate()
        let items = (1...20).map { Self.item("m\($0)", id) }
        do {
            let storage = FileStorage(directory: directory)
            for item in items { try storage.appendOutbox(item) }
            try storage.updateOutbox(Self.item("m3", id, failure: "gone"))
            for index in [1, 5, 20] { try storage.removeOutbox(clientMessageID: "m\(index)") }
        }
        var expected = items.filter { !["m1", "m5", "m20"].contains($0.clientMessageID) }
        expected[1] = Self.item("m3", id, failure: "gone")
        #expect(try FileStorage(directory: directory).loadOutbox() == expected)

        // A new instance keeps appending after what the old one wrote.
        let reopened = FileStorage(directory: directory)
        _ = try reopened.loadOutbox()
        try reopened.appendOutbox(Self.item("m21", id))
        #expect(try FileStorage(directory: directory).loadOutbox() == expected + [Self.item("m21", id)])
    }

    /// Bytes cut from the end of the journal, as a kill in the middle of the last `write` leaves it.
    @Test(arguments: [1, 4, 8, 9, 40, -1])
    func tornFinalRecord_isIgnored_andCutOffBeforeTheNextAppend(cut: Int) throws {
        let directory = Self.temporaryDirectory()
        let id = ConversationID.generate()
        let storage = FileStorage(directory: directory)
        try storage.appendEvents(Self.events(id, 1...3), to: id)
        let url = directory.appendingPathComponent("history.log")
        let whole = try Self.fileSize(url)
        try storage.appendEvents(Self.events(id, 4...4), to: id)
        let record = try Self.fileSize(url) - whole
        // -1: all of the last record's payload but its final byte.
        let bytes = cut < 0 ? record - 1 : cut
        let handle = try FileHandle(forUpdating: url)
        try handle.truncate(atOffset: UInt64(whole + record - bytes))
        try handle.close()

        let reopened = FileStorage(directory: directory)
        #expect(try reopened.loadHistory().events[id] == Self.events(id, 1...3))
        try reopened.appendEvents(Self.events(id, 4...5, text: "again"), to: id)
        #expect(try FileStorage(directory: directory).loadHistory().events[id] == Self.events(id, 1...3) + Self.events(id, 4...5, text: "again"))
    }

    @Test func garbageAfterTheLastRecord_isIgnored_forTheOutboxToo() throws {
        let directory = Self.temporaryDirectory()
        let id = ConversationID.generate()
        let storage = FileStorage(directory: directory)
        try storage.appendOutbox(Self.item("a", id))
        try storage.appendOutbox(Self.item("b", id))
        // A power cut can leave a block of zeros, or the half of a record, after the last whole one.
        let handle = try FileHandle(forWritingTo: directory.appendingPathComponent("outbox.log"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 0, 40, 1, 2, 3, 4]) + Data(repeating: 0, count: 100))
        try handle.close()

        let reopened = FileStorage(directory: directory)
        #expect(try reopened.loadOutbox() == [Self.item("a", id), Self.item("b", id)])
        try reopened.appendOutbox(Self.item("c", id))
        #expect(try FileStorage(directory: directory).loadOutbox() == [Self.item("a", id), Self.item("b", id), Self.item("c", id)])
    }

    @Test func aFileCutInsideItsHeader_holdsNothing_andIsWrittenAgain() throws {
        let directory = Self.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("PRLY".utf8).write(to: directory.appendingPathComponent("outbox.log"))
        let storage = FileStorage(directory: directory)
        #expect(try storage.loadOutbox().isEmpty)
        let id = ConversationID.generate()
        try storage.appendOutbox(Self.item("a", id))
        #expect(try FileStorage(directory: directory).loadOutbox() == [Self.item("a", id)])
    }

    @Test func aFileThatIsNotAJournal_failsTheLoad_withAStorageError() throws {
        let directory = Self.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{\"not\": \"a journal\"}".utf8).write(to: directory.appendingPathComponent("history.log"))
        let error = #expect(throws: ParleyError.self) { try FileStorage(directory: directory).loadHistory() }
        #expect(error?.description.contains("history.log") == true)
    }

    @Test func compaction_keepsTheContent_andBoundsTheJournal() throws {
        let directory = Self.temporaryDirectory()
        let storage = FileStorage(directory: directory, compactionThreshold: 16 * 1024)
        let conversation = Self.conversation()
        var history = StoredHistory(epoch: "epoch-a")
        try storage.saveEpoch("epoch-a")
        for round in 1...320 {
            // Summaries replaced again and again, events reset and replayed: mostly dead records.
            var summary = conversation
            summary.subject = "subject \(round)"
            try storage.saveConversation(summary)
            history.conversations[summary.id] = summary
            if round % 50 == 0 {
                try storage.resetEvents(of: conversation.id)
                history.events[conversation.id] = nil
            }
            let seq = Int64(round % 50 + 1)
            try storage.appendEvents(Self.events(conversation.id, seq...seq), to: conversation.id)
            history.events[conversation.id, default: []].append(contentsOf: Self.events(conversation.id, seq...seq))
        }
        let outboxID = ConversationID.generate()
        for index in 1...300 {
            try storage.appendOutbox(Self.item("m\(index)", outboxID))
            if index > 3 { try storage.removeOutbox(clientMessageID: "m\(index - 3)") }
        }
        let expectedOutbox = (298...300).map { Self.item("m\($0)", outboxID) }

        // Without compaction the history journal would hold 320 summaries and 320 events (≈ 200 KB).
        let historySize = try Self.fileSize(directory.appendingPathComponent("history.log"))
        let outboxSize = try Self.fileSize(directory.appendingPathComponent("outbox.log"))
        #expect(historySize < 48 * 1024)
        #expect(outboxSize < 40 * 1024)
        #expect(try FileStorage(directory: directory).loadHistory() == history)
        #expect(try FileStorage(directory: directory).loadOutbox() == expectedOutbox)

        // Compacting on demand leaves one record per kind of thing and the same content.
        try storage.compact()
        #expect(try Self.fileSize(directory.appendingPathComponent("outbox.log")) < 2 * 1024)
        #expect(try FileStorage(directory: directory).loadHistory() == history)
        #expect(try FileStorage(directory: directory).loadOutbox() == expectedOutbox)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("history.log.tmp").path))
    }

    @Test func appendingAnEvent_writesTheBytesOfThatEvent_notOfTheHistory() throws {
        let directory = Self.temporaryDirectory()
        let storage = FileStorage(directory: directory)
        let url = directory.appendingPathComponent("history.log")
        let conversations = (0..<20).map { _ in Self.conversation() }
        for conversation in conversations { try storage.saveConversation(conversation) }
        let id = conversations[0].id

        // The growth of the journal for one more event, at a short and at a long history.
        func growth(appending seq: Int64) throws -> Int {
            let before = try Self.fileSize(url)
            try storage.appendEvents(Self.events(id, seq...seq), to: id)
            return try Self.fileSize(url) - before
        }
        try storage.appendEvents(Self.events(id, 1...9), to: id)
        let short = try growth(appending: 10)
        for conversation in conversations {
            // 20 conversations × 100 events.
            let start = conversation.id == id ? Int64(11) : 1
            for seq in start...100 { try storage.appendEvents(Self.events(conversation.id, seq...seq), to: conversation.id) }
        }
        let historyBytes = try Self.fileSize(url)
        let long = try growth(appending: 101)

        let eventBytes = try ParleyJSON.encode(Self.events(id, 101...101)[0]).count
        print("one event: \(eventBytes) B of JSON; appended \(short) B at 10 events, \(long) B at 2,000 (journal \(historyBytes) B)")
        #expect(historyBytes > 100 * long)
        // The record adds its framing, the conversation id and the digest of the conversation's figures.
        #expect(long <= eventBytes + 192)
        #expect(abs(long - short) <= 8)

        // 2,000 records, read back in several batches.
        let events = try FileStorage(directory: directory).loadHistory().events
        #expect(events.count == 20)
        #expect(events[id] == Self.events(id, 1...101))
        #expect(events.values.allSatisfy { $0.count >= 100 && $0.map(\.seq) == Array(1...Int64($0.count)) })
    }

    @Test func aWholeRecordThatDoesNotDecode_endsTheLoad_andIsCutOffBeforeTheNextAppend() throws {
        let directory = Self.temporaryDirectory()
        let id = ConversationID.generate()
        let key = SymmetricKey(size: .bits256)
        let storage = FileStorage(directory: directory, encryption: .key(key))
        for name in ["a", "b", "c"] { try storage.appendOutbox(Self.item(name, id)) }
        // A sound record (checksum, seal) of a kind this version does not know (a newer one wrote it).
        let payload = Data(#"{"kind":"from_the_future","item":{}}"#.utf8)
        try EncryptedStorageTests.appendSealedRecord(payload, role: "outbox", to: directory.appendingPathComponent("outbox.log"), key: key)

        let reopened = FileStorage(directory: directory, encryption: .key(key))
        #expect(try reopened.loadOutbox() == ["a", "b", "c"].map { Self.item($0, id) })
        try reopened.appendOutbox(Self.item("d", id))
        #expect(try FileStorage(directory: directory, encryption: .key(key)).loadOutbox() == ["a", "b", "c", "d"].map { Self.item($0, id) })
    }

    /// CRC-32 (IEEE), bit by bit: the journal's record checksum.
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func oldJSONFiles_areConvertedOnce_andRemoved() throws {
        let directory = Self.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let conversation = Self.conversation()
        let history = StoredHistory(epoch: "epoch-a", conversations: [conversation.id: conversation],
                                    events: [conversation.id: Self.events(conversation.id, 1...30)])
        let outbox = [Self.item("a", conversation.id), Self.item("b", conversation.id, failure: "too long")]
        // Exactly what earlier versions wrote: one JSON document per kind.
        try ParleyJSON.encode(history).write(to: directory.appendingPathComponent("history.json"))
        try ParleyJSON.encode(outbox).write(to: directory.appendingPathComponent("outbox.json"))

        let storage = FileStorage(directory: directory)
        #expect(try storage.loadHistory() == history)
        #expect(try storage.loadOutbox() == outbox)
        for name in ["history.json", "outbox.json"] {
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path))
        }
        try storage.appendEvents(Self.events(conversation.id, 31...31), to: conversation.id)
        try storage.removeOutbox(clientMessageID: "a")

        let reopened = FileStorage(directory: directory)
        #expect(try reopened.loadHistory().events[conversation.id] == Self.events(conversation.id, 1...31))
        #expect(try reopened.loadOutbox() == [outbox[1]])
    }

    @Test func aLeftoverOldFile_nextToItsJournal_isRemoved_notReadAgain() throws {
        let directory = Self.temporaryDirectory()
        let id = ConversationID.generate()
        let storage = FileStorage(directory: directory)
        try storage.appendOutbox(Self.item("new", id))
        // Killed after the journal was written and before the old file was removed.
        try ParleyJSON.encode([Self.item("old", id)]).write(to: directory.appendingPathComponent("outbox.json"))
        #expect(try FileStorage(directory: directory).loadOutbox() == [Self.item("new", id)])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("outbox.json").path))
    }

    @Test func everyFile_isReadableByTheOwnerOnly() throws {
        let directory = Self.temporaryDirectory()
        let storage = FileStorage(directory: directory)
        let id = ConversationID.generate()
        try storage.saveSecrets(StoredSecrets(deviceID: "device"))
        try storage.appendOutbox(Self.item("a", id))
        try storage.appendEvents(Self.events(id, 1...1), to: id)
        var names = ["secrets.sealed", "outbox.log", "history.log"]
        #if !canImport(Security)
        names.append("storage.key")
        #endif
        for name in names {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600, "\(name)")
        }
    }
}
