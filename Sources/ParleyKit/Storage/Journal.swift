import Foundation
import ParleyCore

/// A value that a ``Journal`` keeps as the list of changes made to it.
protocol Journaled: Decodable, Sendable {
    associatedtype Change: Codable & Sendable

    /// The empty value (a new install).
    init()
    /// Applies one change.
    mutating func apply(_ change: Change)
    /// Changes that rebuild this value from empty: what a compacted journal holds.
    var compacted: [Change] { get }
    /// Records in `ledger` what a change's record (`bytes` long) makes live or dead.
    static func account(_ change: Change, bytes: Int, in ledger: inout JournalLedger)
}

/// The bytes of the records a journal still needs, by what they describe; the rest is dead and
/// goes at the next compaction.
struct JournalLedger {
    private var bytes: [String: Int] = [:]
    /// The bytes of live records.
    private(set) var total = 0

    /// A record that replaces every earlier one with the same key.
    mutating func replace(_ key: String, bytes count: Int) {
        total += count - (bytes[key] ?? 0)
        bytes[key] = count
    }

    /// A record that adds to the earlier ones with the same key.
    mutating func add(_ key: String, bytes count: Int) {
        total += count
        bytes[key, default: 0] += count
    }

    /// Records whose key is gone (a removal is itself dead once applied).
    mutating func remove(_ key: String) {
        total -= bytes.removeValue(forKey: key) ?? 0
    }

    /// Records whose key starts with a prefix.
    mutating func removeAll(prefix: String) {
        for key in bytes.keys where key.hasPrefix(prefix) { remove(key) }
    }
}

/// A ``Journaled`` value in a ``JournalFile``: each change is appended as one record; loading
/// replays them. When the file is past `compactionThreshold` and more than half of it is dead
/// records, it is rewritten as the changes that rebuild the value (write, sync, rename).
///
/// A file in an old format is read once and written sealed: one JSON document (`legacyURL`, then
/// removed), or a journal of plain records (`PRLYLOG1`, rewritten in place).
final class Journal<Value: Journaled>: Sendable {
    private struct State: ~Copyable {
        var file: JournalFile
        var ledger = JournalLedger()
        var isLoaded = false
        let encoder = ParleyJSON.makeEncoder()
        let decoder = ParleyJSON.makeDecoder()
    }

    private let state: Locked<State>
    private let legacyURL: URL?
    private let compactionThreshold: Int
    private let syncsEveryChange: Bool

    /// - Parameters:
    ///   - url: the journal.
    ///   - role: the journal's role, authenticated with each record (`outbox`).
    ///   - keyring: the storage's key.
    ///   - legacyURL: a JSON file of `Value` from before journals, migrated on first use.
    ///   - compactionThreshold: the size in bytes past which a journal that is more than half dead
    ///     records is rewritten.
    ///   - syncsEveryChange: true to fsync after each record (the outbox); false to leave it to the
    ///     system (the history, which the server can always send again).
    init(url: URL, role: String, keyring: StorageKeyring, legacyURL: URL?, compactionThreshold: Int, syncsEveryChange: Bool) {
        state = Locked(State(file: JournalFile(url: url, role: role, keyring: keyring)))
        self.legacyURL = legacyURL
        self.compactionThreshold = compactionThreshold
        self.syncsEveryChange = syncsEveryChange
    }

    deinit {
        state.withLock { $0.file.close() }
    }

    /// The value the journal holds.
    func load() throws -> Value {
        try state.withLock { state in try Self.load(&state, legacyURL: legacyURL) }
    }

    /// Appends one change.
    func append(_ change: Value.Change) throws {
        try state.withLock { state in
            if !state.isLoaded { _ = try Self.load(&state, legacyURL: legacyURL) }
            let payload = try Self.encode(change, name: state.file.url.lastPathComponent, encoder: state.encoder)
            try state.file.append([payload], sync: syncsEveryChange)
            Value.account(change, bytes: payload.count + JournalFile.recordOverhead, in: &state.ledger)
            if state.file.length >= compactionThreshold && state.file.length > 2 * (state.ledger.total + JournalFile.headerSize) {
                try Self.compact(&state, legacyURL: legacyURL)
            }
        }
    }

    /// Rewrites the journal as the changes that rebuild its value.
    func compact() throws {
        try state.withLock { state in try Self.compact(&state, legacyURL: legacyURL) }
    }

    /// The journal's size in bytes, up to its last whole record.
    var length: Int { state.withLock { $0.file.length } }

    // MARK: Under the lock

    private static func load(_ state: inout State, legacyURL: URL?) throws -> Value {
        try migrate(&state, legacyURL: legacyURL)
        return try replay(&state)
    }

    /// The value the file's records rebuild (no migration).
    private static func replay(_ state: inout State) throws -> Value {
        let records = try state.file.readRecords()
        var value = Value()
        var ledger = JournalLedger()
        // Where the last usable record ends: the header's end until one is read.
        var end = records.first.map { $0.location.lowerBound - JournalFile.framing } ?? state.file.length
        var isComplete = true
        for start in stride(from: 0, to: records.count, by: batchSize) where isComplete {
            let batch = records[start..<min(start + batchSize, records.count)]
            let payloads = try batch.map { try state.file.payload(of: $0) }
            var changes = JournalDecoding.decodeBatch(payloads, as: Value.Change.self, with: state.decoder)
            if changes.count < batch.count {
                // A record that does not decode (written by a newer version) ends what can be read.
                changes = []
                for payload in payloads {
                    guard let change = try? state.decoder.decode(Value.Change.self, from: payload) else { break }
                    changes.append(change)
                }
                isComplete = changes.count == batch.count
            }
            // Applied batch by batch, so the decoded values are freed as they are folded in.
            for (change, record) in zip(changes, batch) {
                value.apply(change)
                Value.account(change, bytes: record.storedBytes, in: &ledger)
                end = record.end
            }
        }
        state.file.discard(after: end)
        state.ledger = ledger
        state.isLoaded = true
        return value
    }

    /// Records decoded per decoder call when loading.
    private static var batchSize: Int { JournalDecoding.batchSize }

    private static func compact(_ state: inout State, legacyURL: URL?) throws {
        let value = try load(&state, legacyURL: legacyURL)
        try write(value, to: &state)
    }

    private static func write(_ value: Value, to state: inout State) throws {
        let encoder = state.encoder
        var ledger = JournalLedger()
        var payloads: [Data] = []
        for change in value.compacted {
            let payload = try encode(change, name: state.file.url.lastPathComponent, encoder: encoder)
            Value.account(change, bytes: payload.count + JournalFile.recordOverhead, in: &ledger)
            payloads.append(payload)
        }
        try state.file.replace(with: payloads)
        state.ledger = ledger
        state.isLoaded = true
    }

    /// Converts the files of older versions, once: a journal of plain records is rewritten sealed
    /// (atomically: a kill leaves the old file or the new one); a JSON file becomes a journal.
    private static func migrate(_ state: inout State, legacyURL: URL?) throws {
        if try state.file.holdsPlaintextRecords() {
            let value = try replay(&state)
            try write(value, to: &state)
        }
        guard let legacyURL, FileManager.default.fileExists(atPath: legacyURL.path) else { return }
        // With both present, the journal was written and the process was killed before the old
        // file was removed: the journal holds everything.
        if !state.file.exists {
            let value: Value
            do {
                value = try ParleyJSON.decode(Value.self, from: try Data(contentsOf: legacyURL))
            } catch {
                throw ParleyError.storage("\(legacyURL.lastPathComponent) is unreadable: \(error)")
            }
            try write(value, to: &state)
        }
        try? FileManager.default.removeItem(at: legacyURL)
    }

    private static func encode(_ change: Value.Change, name: String, encoder: JSONEncoder) throws -> Data {
        do {
            return try encoder.encode(change)
        } catch {
            throw ParleyError.storage("cannot encode a record of \(name): \(error)")
        }
    }
}

/// Decoding many records at once.
enum JournalDecoding {
    /// Records decoded per decoder call when loading.
    static let batchSize = 256

    /// Decodes records in one call, as the elements of one JSON array: a decoder call costs several
    /// microseconds of its own, which one record per received event would pay thousands of times at
    /// each start. Empty when any record does not decode.
    static func decodeBatch<Change: Decodable>(_ payloads: some Collection<Data>, as type: Change.Type, with decoder: JSONDecoder) -> [Change] {
        guard !payloads.isEmpty else { return [] }
        var array = Data(capacity: payloads.reduce(2) { $0 + $1.count + 1 })
        array.append(UInt8(ascii: "["))
        for (index, payload) in payloads.enumerated() {
            if index > 0 { array.append(UInt8(ascii: ",")) }
            array.append(payload)
        }
        array.append(UInt8(ascii: "]"))
        return (try? decoder.decode([Change].self, from: array)) ?? []
    }

    /// Decodes records in batches, stopping at the first that does not decode (written by a newer
    /// version): what precedes it is returned.
    static func decodeAll<Change: Decodable>(_ payloads: [Data], as type: Change.Type, with decoder: JSONDecoder) -> [Change] {
        var changes: [Change] = []
        for start in stride(from: 0, to: payloads.count, by: batchSize) {
            let batch = payloads[start..<min(start + batchSize, payloads.count)]
            let decoded = decodeBatch(batch, as: type, with: decoder)
            if decoded.count == batch.count {
                changes.append(contentsOf: decoded)
                continue
            }
            for payload in batch {
                guard let change = try? decoder.decode(type, from: payload) else { return changes }
                changes.append(change)
            }
        }
        return changes
    }
}
