import Foundation
import ParleyCore

/// The default storage: files in a directory of their own (created `0700` when missing).
///
/// - `history.log` and `outbox.log` are append-only journals: each change is one checksummed record
///   appended with one `write`, so storing a received event costs that event's bytes, whatever the
///   history's length. Each outbox record is also `fsync`ed before the call returns: a message
///   accepted by ``ParleyClient/send(_:in:)`` survives the app being killed and the device losing
///   power. History records are not synced (a lost tail is fetched again from the server).
/// - A journal past ``compactionThreshold`` with more than half of it dead records (acknowledged
///   messages, replaced summaries, reset events) is rewritten whole: a temporary file, `fsync`,
///   then a rename over the journal, so a kill leaves the old journal or the new one.
/// - A kill in the middle of a `write` leaves a torn last record; loading ignores it (it never fails
///   for that), and the next append cuts it off first.
/// - A start reads the history's index (``loadHistoryIndex()``): every record is checked, but only
///   summaries, epochs and resets are decoded; each conversation's figures come from the digest
///   written with its last record of events. ``loadEvents(of:)`` decodes one conversation's records,
///   read where they lie. (`docs/decisions/0009-client-storage-journals.md`)
/// - `secrets.json` is small, readable by the owner only (`0600`) and replaced atomically (write,
///   then rename).
/// - `masking.json` keeps the app's masking rules as last read, replaced atomically.
/// - The `history.json` and `outbox.json` of earlier versions are read once, converted into
///   journals and removed.
///
/// One client at a time uses a directory; the journals are `0600`.
public struct FileStorage: ParleyStorage {
    /// The directory holding the files.
    public let directory: URL
    /// The journal size in bytes from which a journal that is more than half dead records is
    /// compacted. Default 1 MiB.
    public let compactionThreshold: Int

    private let history: HistoryJournal
    private let outbox: Journal<[OutboxItem]>

    /// Uses (and creates when missing) a directory.
    /// - Parameters:
    ///   - directory: the directory; nothing else should write there.
    ///   - compactionThreshold: see ``compactionThreshold``. Default 1 MiB.
    public init(directory: URL, compactionThreshold: Int = 1 << 20) {
        self.directory = directory
        self.compactionThreshold = compactionThreshold
        history = HistoryJournal(url: directory.appendingPathComponent("history.log"), legacyURL: directory.appendingPathComponent("history.json"),
                                 compactionThreshold: compactionThreshold)
        outbox = Journal(url: directory.appendingPathComponent("outbox.log"), legacyURL: directory.appendingPathComponent("outbox.json"),
                         compactionThreshold: compactionThreshold, syncsEveryChange: true)
    }

    // MARK: Sign-out

    /// Removes what a signed-out visitor leaves: the history and outbox files (and those of earlier
    /// versions), keeping only the device id in the secrets. Use a new storage (a new client)
    /// afterwards: this one's journals are gone.
    /// - Throws: ``ParleyError`` (`storage`) when the secrets cannot be written.
    public func removeHistoryAndOutbox(keepingDeviceID deviceID: String) throws {
        for name in ["history.log", "history.json", "outbox.log", "outbox.json"] {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
        try saveSecrets(StoredSecrets(deviceID: deviceID))
    }

    /// Removes the directory and everything in it (a verified user's folder at sign-out).
    public func removeAll() {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Secrets

    /// The stored secrets, or nil on first use. - Throws: ``ParleyError`` (`storage`) when
    /// `secrets.json` cannot be read or decoded.
    public func loadSecrets() throws -> StoredSecrets? {
        let url = directory.appendingPathComponent("secrets.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try ParleyJSON.decode(StoredSecrets.self, from: data)
        } catch {
            throw ParleyError.storage("secrets.json is unreadable: \(error)")
        }
    }

    /// Replaces `secrets.json` atomically, readable by the owner only.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func saveSecrets(_ secrets: StoredSecrets) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let url = directory.appendingPathComponent("secrets.json")
            try ParleyJSON.encode(secrets).write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw ParleyError.storage("cannot write secrets.json: \(error)")
        }
    }

    // MARK: Outbox

    /// The outbox replayed from `outbox.log` (or converted from an old `outbox.json`).
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be read or is not a journal.
    public func loadOutbox() throws -> [OutboxItem] { try outbox.load() }

    /// Appends the message to `outbox.log` and syncs it to disk before returning.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func appendOutbox(_ item: OutboxItem) throws { try outbox.append(.append(item)) }

    /// Appends the new state of a message to `outbox.log` (synced).
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func updateOutbox(_ item: OutboxItem) throws { try outbox.append(.update(item)) }

    /// Appends the removal of a message to `outbox.log` (synced).
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func removeOutbox(clientMessageID: String) throws { try outbox.append(.remove(clientMessageID: clientMessageID)) }

    // MARK: History

    /// The history replayed from `history.log` (or converted from an old `history.json`).
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be read or is not a journal.
    public func loadHistory() throws -> StoredHistory { try history.load() }

    /// The epoch, summaries and each conversation's figures, without decoding events (see the
    /// type's comment).
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be read or is not a journal.
    public func loadHistoryIndex() throws -> StoredHistoryIndex { try history.index() }

    /// One conversation's events, decoded from its own records only.
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be read.
    public func loadEvents(of conversation: ConversationID) throws -> [ConversationEvent] { try history.events(of: conversation) }

    /// Appends one record holding the events to `history.log`.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func appendEvents(_ events: [ConversationEvent], to conversation: ConversationID) throws {
        guard !events.isEmpty else { return }
        try history.append(.events(conversation, events))
    }

    /// Appends the summary to `history.log`; it replaces the earlier one when loading.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func saveConversation(_ conversation: Conversation) throws { try history.append(.conversation(conversation)) }

    /// Appends the epoch to `history.log`.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func saveEpoch(_ epoch: String) throws { try history.append(.epoch(epoch)) }

    /// Appends the reset of one conversation's events to `history.log`.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func resetEvents(of conversation: ConversationID) throws { try history.append(.resetEvents(conversation)) }

    /// Appends the reset of every event, with the new epoch, to `history.log`.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    public func resetHistory(epoch: String?) throws { try history.append(.resetHistory(epoch: epoch)) }

    // MARK: Maintenance

    /// Rewrites both journals now as the records that rebuild what they hold (write, sync, rename),
    /// whatever their size. Appends do this by themselves past ``compactionThreshold``.
    /// - Throws: ``ParleyError`` (`storage`) when a journal cannot be read or rewritten.
    public func compact() throws {
        try history.compact()
        try outbox.compact()
    }
}
