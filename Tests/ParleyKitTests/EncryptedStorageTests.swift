import Crypto
import Foundation
import Logging
import ParleyCore
@testable import ParleyKit
import ParleyTestSupport
import Testing

/// `FileStorage` at rest: sealed files, their key, and what happens when they are altered, moved,
/// written by an earlier version, or left without their key.
@Suite(.timeLimit(.minutes(3)))
struct EncryptedStorageTests {
    /// What must never reach the disk in the clear.
    static let secretText = "Tangerine zebra 4417, my card ends in 0042"
    static let token = "vt_sealed-token-8c1f2b"
    static let deviceID = "device-7d2e-4417"

    static func secrets() -> StoredSecrets {
        StoredSecrets(deviceID: deviceID, token: token, tokenExpiresAt: Date(timeIntervalSince1970: 1_900_000_000), visitorID: FileStorageTests.visitor)
    }

    static func item(_ id: String, _ conversation: ConversationID) -> OutboxItem {
        OutboxItem(clientMessageID: id, conversationID: conversation, text: "\(secretText) (\(id))", createdAt: Date(timeIntervalSince1970: 1_800_000_100))
    }

    /// Every regular file under a directory, by its path inside it.
    static func files(under directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]))
        for case let url as URL in enumerator where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            files[String(url.path.dropFirst(directory.path.count))] = try Data(contentsOf: url)
        }
        return files
    }

    /// Expects no file under the directory to hold any of the texts, or JSON at all.
    static func expectNothingInTheClear(under directory: URL, _ texts: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let files = try files(under: directory)
        #expect(files.values.reduce(0) { $0 + $1.count } > 1000, "the files were written", sourceLocation: sourceLocation)
        for (name, bytes) in files {
            for text in texts + [#""kind""#, #""device_id""#, #""deviceID""#] {
                #expect(bytes.range(of: Data(text.utf8)) == nil, "\(name) holds \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A storage with some of everything, each holding ``secretText``; returns what it holds.
    @discardableResult
    static func fill(_ storage: FileStorage, events count: Int64 = 40) throws -> (conversation: Conversation, events: [ConversationEvent], outbox: [OutboxItem]) {
        let conversation = FileStorageTests.conversation(subject: secretText)
        let events = FileStorageTests.events(conversation.id, 1...count, text: secretText)
        try storage.saveSecrets(secrets())
        try storage.saveEpoch("epoch-a")
        try storage.saveConversation(conversation)
        try storage.appendEvents(Array(events.prefix(20)), to: conversation.id)
        for event in events.dropFirst(20) { try storage.appendEvents([event], to: conversation.id) }
        let items = (1...5).map { item("m\($0)", conversation.id) }
        for item in items { try storage.appendOutbox(item) }
        try storage.removeOutbox(clientMessageID: "m1")
        return (conversation, events, Array(items.dropFirst()))
    }

    /// Where each record's stored bytes lie in a sealed journal.
    static func locations(of url: URL) throws -> [Range<Int>] {
        let data = try Data(contentsOf: url)
        #expect(data.prefix(8) == Data("PRLYLOG2".utf8))
        return JournalFile.locations(in: data, from: JournalFile.headerSize)
    }

    /// A record as it lies in a journal, framing included.
    static func frame(_ location: Range<Int>, in data: Data) -> Data {
        data[(location.lowerBound - JournalFile.framing)..<location.upperBound]
    }

    /// Replaces bytes of a file, at an offset.
    static func overwrite(_ url: URL, at offset: Int, with bytes: Data) throws {
        var data = try Data(contentsOf: url)
        data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        try data.write(to: url)
    }

    static func bigEndian(_ value: UInt32) -> Data { withUnsafeBytes(of: value.bigEndian) { Data($0) } }

    // MARK: - (1) Nothing in the clear

    @Test func storedFiles_holdNoMessageTextOrToken_andReadBackIntactAfterReopening() throws {
        let directory = FileStorageTests.temporaryDirectory()
        let storage = FileStorage(directory: directory)
        let (conversation, events, outbox) = try Self.fill(storage)
        let texts = [Self.secretText, Self.token, Self.deviceID, conversation.id.rawValue, "Tangerine"]
        try Self.expectNothingInTheClear(under: directory, texts)
        #expect(Set(try Self.files(under: directory).keys).isSuperset(of: ["/secrets.sealed", "/outbox.log", "/history.log"]))

        // Compaction writes the files anew: sealed too.
        try storage.compact()
        try Self.expectNothingInTheClear(under: directory, texts)

        let reopened = FileStorage(directory: directory)
        #expect(try reopened.loadSecrets() == Self.secrets())
        #expect(try reopened.loadOutbox() == outbox)
        #expect(try reopened.loadHistoryIndex().conversations[conversation.id]?.summary == conversation)
        #expect(try reopened.loadEvents(of: conversation.id) == events)
        #expect(try FileStorage(directory: directory).loadHistory()
                == StoredHistory(epoch: "epoch-a", conversations: [conversation.id: conversation], events: [conversation.id: events]))
    }

    @Test func aClientsFolder_afterSendingAndReceiving_holdsNoMessageText() async throws {
        try await withServer { server in
            let kit = KitHarness(server: server)
            let directory = kit.storageDirectory()
            let visitor = kit.visitor(storage: directory)
            try await visitor.start()
            let conversation = try await visitor.openConversation(subject: "Tangerine subject 4417")
            let model = try await visitor.conversation(conversation.id)
            let texts = (1...3).map { "\(Self.secretText) \($0)" }
            for text in texts { _ = try await visitor.send(text, in: conversation.id) }
            try await waitUntil {
                let messages = await model.messages
                return messages.count == 3 && messages.allSatisfy { $0.deliveryState == .sent }
            }
            await visitor.stop()

            try Self.expectNothingInTheClear(under: directory, [Self.secretText, "Tangerine subject"])
            let reopened = FileStorage(directory: directory)
            let token = try #require(try reopened.loadSecrets()?.token)
            try Self.expectNothingInTheClear(under: directory, [token])
            #expect(try reopened.loadEvents(of: conversation.id).compactMap(\.message?.text) == texts)
        }
    }

    // MARK: - (2) The key

    #if !canImport(Security)
    @Test func theKeyFile_isThirtyTwoBytes_readableByTheOwnerOnly() throws {
        let directory = FileStorageTests.temporaryDirectory()
        try Self.fill(FileStorage(directory: directory))
        let key = directory.appendingPathComponent("storage.key")
        let attributes = try FileManager.default.attributesOfItem(atPath: key.path)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
        #expect(try Data(contentsOf: key).count == 32)
        let folder = try FileManager.default.attributesOfItem(atPath: directory.path)
        #expect((folder[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o700)
        // The same key on every reopening.
        let before = try Data(contentsOf: key)
        _ = try FileStorage(directory: directory).loadOutbox()
        #expect(try Data(contentsOf: key) == before)
    }

    @Test func aKeyFileCutWhileBeingMade_withNothingSealed_isMadeAgain() throws {
        let directory = FileStorageTests.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 5).write(to: directory.appendingPathComponent("storage.key"))
        let storage = FileStorage(directory: directory)
        try storage.saveSecrets(Self.secrets())
        #expect(try Data(contentsOf: directory.appendingPathComponent("storage.key")).count == 32)
        #expect(try FileStorage(directory: directory).loadSecrets() == Self.secrets())
    }
    #endif

    @Test func aKeyOfAnotherSize_failsEveryCall_withAStorageError() throws {
        let storage = FileStorage(directory: FileStorageTests.temporaryDirectory(), encryption: .key(SymmetricKey(size: .bits128)))
        let error = #expect(throws: ParleyError.self) { try storage.saveSecrets(Self.secrets()) }
        #expect(error?.description.contains("256") == true)
        #expect(throws: ParleyError.self) { try storage.appendOutbox(Self.item("a", .generate())) }
    }

    // MARK: - (3) Altered records

    @Test(arguments: ["outbox.log", "history.log"])
    func aRecordAlteredOnDisk_withItsChecksumMended_isRefused_andTheFileLeftAsItIs(file: String) throws {
        let directory = FileStorageTests.temporaryDirectory()
        try Self.fill(FileStorage(directory: directory))
        let url = directory.appendingPathComponent(file)
        let record = try Self.locations(of: url)[1]
        var stored = try Data(contentsOf: url)[record]
        stored[stored.startIndex + 20] ^= 0x01
        try Self.overwrite(url, at: record.lowerBound, with: stored)
        try Self.overwrite(url, at: record.lowerBound - 4, with: Self.bigEndian(FileStorageTests.crc32(Data(stored))))
        let altered = try Data(contentsOf: url)

        let storage = FileStorage(directory: directory)
        let error = #expect(throws: ParleyError.self) {
            if file == "outbox.log" { _ = try storage.loadOutbox() } else { _ = try storage.loadHistoryIndex() }
        }
        #expect(error?.description.contains(file) == true)
        #expect(error?.description.contains("does not authenticate") == true)
        // Appending fails too, and nothing is cut or rewritten: the records after it are not lost.
        #expect(throws: ParleyError.self) {
            if file == "outbox.log" { try storage.appendOutbox(Self.item("z", .generate())) } else { try storage.saveEpoch("epoch-b") }
        }
        #expect(try Data(contentsOf: url) == altered)
    }

    @Test func aRecordAlteredAfterTheIndexWasRead_isRefused_whenItsConversationIsRead() throws {
        let directory = FileStorageTests.temporaryDirectory()
        let (conversation, _, _) = try Self.fill(FileStorage(directory: directory))
        let storage = FileStorage(directory: directory)
        _ = try storage.loadHistoryIndex()
        let url = directory.appendingPathComponent("history.log")
        let last = try #require(try Self.locations(of: url).last)
        try Self.overwrite(url, at: last.upperBound - 1, with: Data([try Data(contentsOf: url)[last.upperBound - 1] ^ 0x80]))
        #expect(throws: ParleyError.self) { try storage.loadEvents(of: conversation.id) }
    }

    @Test func aRecordAlteredWithoutMendingItsChecksum_isNeverReturned() throws {
        let directory = FileStorageTests.temporaryDirectory()
        let (conversation, _, _) = try Self.fill(FileStorage(directory: directory))
        let url = directory.appendingPathComponent("outbox.log")
        let third = try Self.locations(of: url)[2]
        try Self.overwrite(url, at: third.lowerBound + 30, with: Data([try Data(contentsOf: url)[third.lowerBound + 30] ^ 0xFF]))
        // Read as the torn end of the journal (the CRC's job): what precedes it, nothing altered.
        #expect(try FileStorage(directory: directory).loadOutbox() == [Self.item("m1", conversation.id), Self.item("m2", conversation.id)])
    }

    @Test func secretsAlteredOnDisk_areRefused() throws {
        let directory = FileStorageTests.temporaryDirectory()
        try FileStorage(directory: directory).saveSecrets(Self.secrets())
        let url = directory.appendingPathComponent("secrets.sealed")
        let size = try FileStorageTests.fileSize(url)
        try Self.overwrite(url, at: size - 20, with: Data([try Data(contentsOf: url)[size - 20] ^ 0x04]))
        let error = #expect(throws: ParleyError.self) { try FileStorage(directory: directory).loadSecrets() }
        #expect(error?.description.contains("secrets.sealed") == true)
    }

    // MARK: - (4) Files of the earlier, plain format

    @Test func plainFilesOfTheEarlierFormat_areRead_thenRewrittenSealed() throws {
        let directory = FileStorageTests.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let conversation = FileStorageTests.conversation(subject: Self.secretText)
        let events = FileStorageTests.events(conversation.id, 1...12, text: Self.secretText)
        let items = (1...3).map { Self.item("m\($0)", conversation.id) }
        // Exactly what the previous version wrote: `PRLYLOG1` journals of plain JSON, and `secrets.json`.
        func plainJournal(_ payloads: [Data]) -> Data {
            var file = Data("PRLYLOG1".utf8)
            for payload in payloads { file += Self.bigEndian(UInt32(payload.count)) + Self.bigEndian(FileStorageTests.crc32(payload)) + payload }
            return file
        }
        let history: [HistoryChange] = [.epoch("epoch-a"), .conversation(conversation), .events(conversation.id, Array(events.prefix(6))),
                                        .events(conversation.id, Array(events.dropFirst(6)))]
        // A torn last record, as a kill mid-write left it: ignored, as before.
        try (plainJournal(try history.map(ParleyJSON.encode)) + Data([0, 0, 0, 90, 1])).write(to: directory.appendingPathComponent("history.log"))
        try plainJournal(try items.map { try ParleyJSON.encode(OutboxChange.append($0)) }).write(to: directory.appendingPathComponent("outbox.log"))
        try ParleyJSON.encode(Self.secrets()).write(to: directory.appendingPathComponent("secrets.json"))
        #expect(try Data(contentsOf: directory.appendingPathComponent("outbox.log")).range(of: Data(Self.secretText.utf8)) != nil)

        let storage = FileStorage(directory: directory)
        #expect(try storage.loadSecrets() == Self.secrets())
        #expect(try storage.loadOutbox() == items)
        #expect(try storage.loadHistoryIndex().conversations[conversation.id]
                == StoredConversationEntry(summary: conversation, lastSeq: 12, eventCount: 12))
        #expect(try storage.loadEvents(of: conversation.id) == events)

        // Rewritten sealed at once, the old secrets file gone; appends go on.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("secrets.json").path))
        for name in ["history.log", "outbox.log"] {
            #expect(try Data(contentsOf: directory.appendingPathComponent(name)).prefix(8) == Data("PRLYLOG2".utf8), "\(name)")
        }
        try Self.expectNothingInTheClear(under: directory, [Self.secretText, Self.token, Self.deviceID])
        try storage.appendOutbox(Self.item("m4", conversation.id))
        let reopened = FileStorage(directory: directory)
        #expect(try reopened.loadOutbox() == items + [Self.item("m4", conversation.id)])
        #expect(try reopened.loadHistory() == StoredHistory(epoch: "epoch-a", conversations: [conversation.id: conversation], events: [conversation.id: events]))
        #expect(try reopened.loadSecrets() == Self.secrets())
    }

    @Test func aLeftoverPlainSecretsFile_nextToItsSealedOne_isRemoved_notReadAgain() throws {
        let directory = FileStorageTests.temporaryDirectory()
        try FileStorage(directory: directory).saveSecrets(Self.secrets())
        // Killed after the sealed file was written and before the old one was removed.
        try ParleyJSON.encode(StoredSecrets(deviceID: "old")).write(to: directory.appendingPathComponent("secrets.json"))
        #expect(try FileStorage(directory: directory).loadSecrets() == Self.secrets())
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("secrets.json").path))
    }

    // MARK: - (5) A lost key

    #if !canImport(Security)
    @Test func aDeletedKeyFile_setsTheSealedFilesAside_warns_andTheStorageStartsEmpty() throws {
        let directory = FileStorageTests.temporaryDirectory()
        try Self.fill(FileStorage(directory: directory))
        try FileManager.default.removeItem(at: directory.appendingPathComponent("storage.key"))
        try Self.expectStartsEmpty(directory, encryption: .automatic)
    }
    #endif

    @Test func anotherKey_setsTheSealedFilesAside_warns_andTheStorageStartsEmpty() throws {
        let directory = FileStorageTests.temporaryDirectory()
        try Self.fill(FileStorage(directory: directory, encryption: .key(SymmetricKey(size: .bits256))))
        try Self.expectStartsEmpty(directory, encryption: .key(SymmetricKey(size: .bits256)))
    }

    /// The documented outcome of a lost key: each sealed file is renamed `<name>.unreadable`, a
    /// warning names it, the storage reads as new and is written anew with the new key.
    static func expectStartsEmpty(_ directory: URL, encryption: StorageEncryption) throws {
        let warnings = CollectedLogs()
        let logger = Logger(label: "test") { _ in warnings }
        let storage = FileStorage(directory: directory, encryption: encryption, logger: logger)
        #expect(try storage.loadSecrets() == nil)
        #expect(try storage.loadOutbox().isEmpty)
        #expect(try storage.loadHistoryIndex() == StoredHistoryIndex(epoch: nil, conversations: [:]))
        for name in ["secrets.sealed", "outbox.log", "history.log"] {
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(name + ".unreadable").path), "\(name)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path), "\(name)")
        }
        #expect(warnings.files.sorted() == ["history.log", "outbox.log", "secrets.sealed"])

        let id = ConversationID.generate()
        try storage.saveSecrets(StoredSecrets(deviceID: "new-device"))
        try storage.appendOutbox(Self.item("n1", id))
        let reopened = FileStorage(directory: directory, encryption: encryption)
        #expect(try reopened.loadSecrets() == StoredSecrets(deviceID: "new-device"))
        #expect(try reopened.loadOutbox() == [Self.item("n1", id)])
    }

    // MARK: - (6) Records moved between files

    @Test func aRecordMovedIntoAnotherFile_orWithinItsOwn_doesNotAuthenticate() throws {
        let key = SymmetricKey(size: .bits256)
        let first = FileStorageTests.temporaryDirectory(), second = FileStorageTests.temporaryDirectory()
        try Self.fill(FileStorage(directory: first, encryption: .key(key)))
        try Self.fill(FileStorage(directory: second, encryption: .key(key)))
        let outbox = first.appendingPathComponent("outbox.log"), history = first.appendingPathComponent("history.log")
        let pristine = try Self.files(under: first)
        func restore() throws { for (name, bytes) in pristine { try bytes.write(to: URL(fileURLWithPath: first.path + name)) } }
        func expectRefused(_ load: (FileStorage) throws -> Void, _ comment: Comment) {
            #expect(throws: ParleyError.self, comment) { try load(FileStorage(directory: first, encryption: .key(key))) }
        }

        // An outbox record appended to the history (same key, whole framing, sound checksum).
        let outboxData = try Data(contentsOf: outbox)
        let outboxRecord = Self.frame(try Self.locations(of: outbox)[0], in: outboxData)
        try (try Data(contentsOf: history) + outboxRecord).write(to: history)
        expectRefused({ _ = try $0.loadHistory() }, "an outbox record in the history")
        try restore()

        // The whole outbox journal in the history's place: same header, same offsets, another role.
        try outboxData.write(to: history)
        expectRefused({ _ = try $0.loadHistoryIndex() }, "the outbox journal as the history")
        try restore()

        // A record repeated further on in its own file.
        try (outboxData + outboxRecord).write(to: outbox)
        expectRefused({ _ = try $0.loadOutbox() }, "a record repeated in its file")
        try restore()

        // The same record of another folder's outbox (same key, same size, same offset): another file id.
        let theirs = try Data(contentsOf: second.appendingPathComponent("outbox.log"))
        let place = try Self.locations(of: outbox)[1]
        #expect(try Self.locations(of: second.appendingPathComponent("outbox.log"))[1] == place)
        try Self.overwrite(outbox, at: place.lowerBound - JournalFile.framing, with: Self.frame(place, in: theirs))
        expectRefused({ _ = try $0.loadOutbox() }, "a record from another folder's journal")
        try restore()

        #expect(try FileStorage(directory: first, encryption: .key(key)).loadOutbox().count == 4)
    }

    // MARK: - Sign-out

    #if !canImport(Security)
    @Test func anAnonymousSignOut_replacesTheKey_soFilesFromBeforeCannotBeRead() throws {
        let directory = FileStorageTests.temporaryDirectory()
        let storage = FileStorage(directory: directory)
        try Self.fill(storage)
        let oldKey = try Data(contentsOf: directory.appendingPathComponent("storage.key"))
        let oldHistory = try Data(contentsOf: directory.appendingPathComponent("history.log"))

        try storage.removeHistoryAndOutbox(keepingDeviceID: Self.deviceID)
        #expect(try Data(contentsOf: directory.appendingPathComponent("storage.key")) != oldKey)
        #expect(try FileStorage(directory: directory).loadSecrets() == StoredSecrets(deviceID: Self.deviceID))
        #expect(Set(try Self.files(under: directory).keys) == ["/storage.key", "/secrets.sealed"])

        // A copy of the history from before (a backup, blocks left on flash) is set aside, not read.
        try oldHistory.write(to: directory.appendingPathComponent("history.log"))
        #expect(try FileStorage(directory: directory).loadHistory() == StoredHistory())
    }
    #endif

    @Test func signOut_withTheAppsOwnKey_keepsThatKey() throws {
        let key = SymmetricKey(size: .bits256)
        let directory = FileStorageTests.temporaryDirectory()
        let storage = FileStorage(directory: directory, encryption: .key(key))
        try Self.fill(storage)
        try storage.removeHistoryAndOutbox(keepingDeviceID: Self.deviceID)
        #expect(try FileStorage(directory: directory, encryption: .key(key)).loadSecrets() == StoredSecrets(deviceID: Self.deviceID))
        storage.removeAll()
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    // MARK: - A record this version cannot decode

    /// Appends a sealed record to a journal of a storage using `key`, as a newer version would.
    static func appendSealedRecord(_ payload: Data, role: String, to url: URL, key: SymmetricKey) throws {
        let file = try Data(contentsOf: url)
        let header = Data(file.prefix(JournalFile.headerSize))
        let offset = file.count + JournalFile.framing
        let stored = try RecordSealer(key: key).seal(payload, context: RecordSealer.context(role: role, header: header, offset: offset))
        try (file + bigEndian(UInt32(stored.count)) + bigEndian(FileStorageTests.crc32(stored)) + stored).write(to: url)
    }
}

/// A log handler that keeps the `parley.file` of each warning.
final class CollectedLogs: LogHandler, @unchecked Sendable {
    // @unchecked: the one mutable state is under the mutex; `metadata` and `logLevel` are set once
    // when the logger is made (LogHandler requires them settable).
    private let warnings = Locked<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var files: [String] { warnings.withLock { $0 } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level == .warning else { return }
        warnings.withLock { $0.append(event.metadata?["parley.file"].map { "\($0)" } ?? "?") }
    }
}
