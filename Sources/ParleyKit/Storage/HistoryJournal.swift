import Foundation
import ParleyCore

/// ``FileStorage``'s history: a ``JournalFile`` of ``HistoryChange`` records, with an index of each
/// conversation's records, so that a start reads the list and a conversation's events are decoded
/// only when they are asked for.
///
/// Building the index reads the file, checks and opens every record (``JournalFile``), but decodes
/// only the small records (summaries, epochs, resets): a record of events is recognised by its head
/// (``EventsRecordHead``) and remembered by where it lies; the conversation's figures come from the
/// digest in its last record. A conversation whose last record has no digest (written by an
/// earlier version) is decoded once to make one. Compaction is ``Journal``'s: past the threshold and
/// more than half dead records, the file is rewritten (with digests) and indexed again.
final class HistoryJournal: Sendable {
    /// One conversation in the index.
    private struct Indexed {
        var summary: Conversation?
        /// Where its records of events lie (their payloads), in order.
        var records: [RecordLocation] = []
        /// Its events' figures after the last of them.
        var digest = ConversationDigest()
    }

    private struct State: ~Copyable {
        var file: JournalFile
        var ledger = JournalLedger()
        var isIndexed = false
        var epoch: String?
        var conversations: [ConversationID: Indexed] = [:]
        let encoder = ParleyJSON.makeEncoder()
        let decoder = ParleyJSON.makeDecoder()
    }

    private let state: Locked<State>
    private let legacyURL: URL?
    private let compactionThreshold: Int

    init(url: URL, keyring: StorageKeyring, legacyURL: URL?, compactionThreshold: Int) {
        state = Locked(State(file: JournalFile(url: url, role: "history", keyring: keyring)))
        self.legacyURL = legacyURL
        self.compactionThreshold = compactionThreshold
    }

    deinit {
        state.withLock { $0.file.close() }
    }

    /// The epoch and each conversation's summary and figures, read from the file again.
    func index() throws -> StoredHistoryIndex {
        try state.withLock { state in
            try index(&state)
            var entries: [ConversationID: StoredConversationEntry] = [:]
            for (id, indexed) in state.conversations where indexed.summary != nil || !indexed.records.isEmpty {
                entries[id] = indexed.digest.entry(summary: indexed.summary)
            }
            return StoredHistoryIndex(epoch: state.epoch, conversations: entries)
        }
    }

    /// One conversation's events, decoded from its records alone.
    func events(of id: ConversationID) throws -> [ConversationEvent] {
        try state.withLock { state in
            if !state.isIndexed { try index(&state) }
            return try Self.readEvents(of: id, &state)
        }
    }

    /// The whole history, every record decoded.
    func load() throws -> StoredHistory {
        try state.withLock { state in try load(&state) }
    }

    /// Appends one change (a record of events with the conversation's digest after it).
    func append(_ change: HistoryChange) throws {
        try state.withLock { state in
            if !state.isIndexed { try index(&state) }
            let payload: Data
            if case .events(let id, let events) = change {
                var digest = state.conversations[id]?.digest ?? ConversationDigest()
                for event in events { digest.add(event) }
                if !digest.isUnreadCountKnown {
                    // A read marker between unread messages whose seqs a start did not read.
                    digest = ConversationDigest(folding: try Self.readEvents(of: id, &state) + events)
                }
                state.conversations[id, default: Indexed()].digest = digest
                payload = try Self.encode(DigestedEventsRecord(conversationID: id, digest: digest, events: events), encoder: state.encoder)
            } else {
                payload = try Self.encode(change, encoder: state.encoder)
            }
            let location = try state.file.append([payload], sync: false)[0]
            Self.note(change, at: location, in: &state)
            StoredHistory.account(change, bytes: location.count + JournalFile.framing, in: &state.ledger)
            if state.file.length >= compactionThreshold && state.file.length > 2 * (state.ledger.total + JournalFile.headerSize) {
                try compact(&state)
            }
        }
    }

    /// Rewrites the journal as the changes that rebuild its value, and indexes it again.
    func compact() throws {
        try state.withLock { state in try compact(&state) }
    }

    /// The journal's size in bytes, up to its last whole record.
    var length: Int { state.withLock { $0.file.length } }

    // MARK: Under the lock

    /// Reads the file's records and indexes them (see the type's comment).
    private func index(_ state: inout State) throws {
        try migrate(&state)
        let records = try state.file.readRecords()
        state.epoch = nil
        state.conversations = [:]
        var ledger = JournalLedger()
        var digests: [ConversationID: Data] = [:]
        var end = records.first.map { $0.location.lowerBound - JournalFile.framing } ?? state.file.length
        for record in records {
            let payload = try state.file.payload(of: record)
            let change: HistoryChange
            if let head = EventsRecordHead(payload: payload) {
                change = .events(head.conversationID, [])
                digests[head.conversationID] = head.digest
            } else {
                // A record that does not decode (written by a newer version) ends what can be read.
                guard let decoded = try? state.decoder.decode(HistoryChange.self, from: payload) else { break }
                change = decoded
                switch change {
                case .events(let id, _), .resetEvents(let id): digests[id] = nil
                case .resetHistory: digests = [:]
                case .epoch, .conversation: break
                }
            }
            Self.note(change, at: record.location, in: &state)
            StoredHistory.account(change, bytes: record.storedBytes, in: &ledger)
            end = record.end
        }
        state.file.discard(after: end)
        state.ledger = ledger
        state.isIndexed = true
        // The figures: from each conversation's last digest, or by decoding its events once.
        let withDigest = Array(digests.keys)
        let decoded = JournalDecoding.decodeBatch(withDigest.map { digests[$0]! }, as: ConversationDigest.self, with: state.decoder)
        let isDecoded = decoded.count == withDigest.count
        if isDecoded {
            for (id, digest) in zip(withDigest, decoded) { state.conversations[id]?.digest = digest }
        }
        for (id, indexed) in state.conversations where !indexed.records.isEmpty && (!isDecoded || digests[id] == nil) {
            let digest = ConversationDigest(folding: try Self.readEvents(of: id, &state))
            state.conversations[id]?.digest = digest
        }
    }

    /// What a change (whose record lies at `range`) changes in the index.
    private static func note(_ change: HistoryChange, at range: Range<Int>, in state: inout State) {
        switch change {
        case .epoch(let epoch):
            state.epoch = epoch
        case .conversation(let conversation):
            state.conversations[conversation.id, default: Indexed()].summary = conversation
        case .events(let id, _):
            state.conversations[id, default: Indexed()].records.append(RecordLocation(range))
        case .resetEvents(let id):
            state.conversations[id]?.records = []
            state.conversations[id]?.digest = ConversationDigest()
        case .resetHistory(let epoch):
            state.epoch = epoch
            for id in state.conversations.keys {
                state.conversations[id]?.records = []
                state.conversations[id]?.digest = ConversationDigest()
            }
        }
    }

    /// A conversation's events from its records, as loading the whole history would give them. A
    /// record that does not decode ends them (what precedes it is returned).
    private static func readEvents(of id: ConversationID, _ state: inout State) throws -> [ConversationEvent] {
        guard let ranges = state.conversations[id]?.records, !ranges.isEmpty else { return [] }
        let changes = JournalDecoding.decodeAll(try state.file.read(ranges.map(\.range)), as: HistoryChange.self, with: state.decoder)
        var history = StoredHistory()
        for change in changes {
            if case .events = change { history.apply(change) }
        }
        return history.events[id] ?? []
    }

    private func load(_ state: inout State) throws -> StoredHistory {
        try migrate(&state)
        return try replay(&state)
    }

    /// The history the file's records rebuild (no migration).
    private func replay(_ state: inout State) throws -> StoredHistory {
        let records = try state.file.readRecords()
        let changes = JournalDecoding.decodeAll(try records.map { try state.file.payload(of: $0) }, as: HistoryChange.self, with: state.decoder)
        var value = StoredHistory()
        var ledger = JournalLedger()
        var end = records.first.map { $0.location.lowerBound - JournalFile.framing } ?? state.file.length
        for (change, record) in zip(changes, records) {
            value.apply(change)
            StoredHistory.account(change, bytes: record.storedBytes, in: &ledger)
            end = record.end
        }
        state.file.discard(after: end)
        state.ledger = ledger
        return value
    }

    private func compact(_ state: inout State) throws {
        let value = try load(&state)
        try Self.write(value, to: &state)
        try index(&state)
    }

    /// Replaces the file with the records that rebuild `value`, each of events with its digest.
    private static func write(_ value: StoredHistory, to state: inout State) throws {
        var digests: [ConversationID: ConversationDigest] = [:]
        var payloads: [Data] = []
        for change in value.compacted {
            if case .events(let id, let events) = change {
                var digest = digests[id] ?? ConversationDigest()
                for event in events { digest.add(event) }
                digests[id] = digest
                payloads.append(try encode(DigestedEventsRecord(conversationID: id, digest: digest, events: events), encoder: state.encoder))
            } else {
                payloads.append(try encode(change, encoder: state.encoder))
            }
        }
        try state.file.replace(with: payloads)
        state.isIndexed = false
    }

    /// Converts the files of older versions, once: a journal of plain records is rewritten sealed
    /// (atomically), a `history.json` becomes a journal.
    private func migrate(_ state: inout State) throws {
        if try state.file.holdsPlaintextRecords() {
            let value = try replay(&state)
            try Self.write(value, to: &state)
        }
        guard let legacyURL, FileManager.default.fileExists(atPath: legacyURL.path) else { return }
        // With both present, the journal was written and the process was killed before the old
        // file was removed: the journal holds everything.
        if !state.file.exists {
            let value: StoredHistory
            do {
                value = try ParleyJSON.decode(StoredHistory.self, from: try Data(contentsOf: legacyURL))
            } catch {
                throw ParleyError.storage("\(legacyURL.lastPathComponent) is unreadable: \(error)")
            }
            try Self.write(value, to: &state)
        }
        try? FileManager.default.removeItem(at: legacyURL)
    }

    private static func encode(_ record: some Encodable, encoder: JSONEncoder) throws -> Data {
        do {
            return try encoder.encode(record)
        } catch {
            throw ParleyError.storage("cannot encode a record of history.log: \(error)")
        }
    }
}

/// Where a record's payload lies in the journal, in 64 bits (a history of 10,000 records keeps
/// 80 KB of them): the offset in the high 37 bits (up to 128 GiB), the length in the low 27 (up to
/// `JournalFile.maximumRecordBytes`, 64 MiB).
struct RecordLocation: Sendable, Hashable {
    private let packed: UInt64

    init(_ range: Range<Int>) {
        precondition(range.count <= JournalFile.maximumRecordBytes && range.lowerBound < 1 << 37, "a journal record out of range")
        packed = UInt64(range.lowerBound) << 27 | UInt64(range.count)
    }

    var range: Range<Int> {
        let start = Int(packed >> 27)
        return start..<(start + Int(packed & (1 << 27 - 1)))
    }
}
