import Foundation
import Logging
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
/// - `secrets.sealed` is small, readable by the owner only (`0600`) and replaced atomically
///   (write, sync, rename).
/// - Everything is encrypted at rest: each journal record and the secrets are sealed with
///   AES-256-GCM under the storage's key (``StorageEncryption``), bound to their file and place,
///   so the files hold no message text, token or id in the clear. A record altered on disk makes
///   the load throw instead of being returned; files sealed with a key the storage no longer has
///   are set aside as `<name>.unreadable` (the storage starts empty).
/// - The files of earlier versions are read once and written sealed: the `history.json` and
///   `outbox.json` documents and `secrets.json` (then removed), and journals of plain records
///   (`PRLYLOG1`, rewritten in place).
/// - `masking.json` keeps the app's masking rules as last read, replaced atomically (not sealed:
///   the rules are the app's settings, not the user's data).
///
/// One client at a time uses a directory; every file is `0600`.
public struct FileStorage: ParleyStorage {
    /// The directory holding the files.
    public let directory: URL
    /// The journal size in bytes from which a journal that is more than half dead records is
    /// compacted. Default 1 MiB.
    public let compactionThreshold: Int

    private let keyring: StorageKeyring
    private let secrets: SecretsFile
    private let history: HistoryJournal
    private let outbox: Journal<[OutboxItem]>

    /// Uses (and creates when missing) a directory.
    /// - Parameters:
    ///   - directory: the directory; nothing else should write there.
    ///   - encryption: where the key sealing the files comes from. Default ``StorageEncryption/automatic``
    ///     (the Keychain on Apple platforms, a `0600` key file elsewhere).
    ///   - compactionThreshold: see ``compactionThreshold``. Default 1 MiB.
    ///   - logger: where a file set aside for a lost key is reported (a warning). Default: silent.
    public init(directory: URL, encryption: StorageEncryption = .automatic, compactionThreshold: Int = 1 << 20,
                logger: Logger = Logger(label: "parley.kit.storage", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.directory = directory
        self.compactionThreshold = compactionThreshold
        keyring = StorageKeyring(store: encryption.makeKeyStore(directory: directory), logger: logger)
        secrets = SecretsFile(directory: directory, keyring: keyring)
        history = HistoryJournal(url: directory.appendingPathComponent("history.log"), keyring: keyring,
                                 legacyURL: directory.appendingPathComponent("history.json"), compactionThreshold: compactionThreshold)
        outbox = Journal(url: directory.appendingPathComponent("outbox.log"), role: "outbox", keyring: keyring,
                         legacyURL: directory.appendingPathComponent("outbox.json"), compactionThreshold: compactionThreshold,
                         syncsEveryChange: true)
    }

    // MARK: Sign-out

    /// Removes what a signed-out visitor leaves: the history and outbox files (those of earlier
    /// versions, and any set aside as unreadable, too), and replaces the key with a new one (an
    /// app's own key stays), keeping only the device id in the secrets, sealed with the new key.
    /// Use a new storage (a new client) afterwards: this one's journals are gone.
    /// - Throws: ``ParleyError`` (`storage`) when the key cannot be replaced or the secrets written.
    public func removeHistoryAndOutbox(keepingDeviceID deviceID: String) throws {
        for name in ["history.log", "history.json", "outbox.log", "outbox.json"] {
            for file in [name, name + StorageKeyring.unreadableSuffix] {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
            }
        }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(SecretsFile.name + StorageKeyring.unreadableSuffix))
        // A new key rather than the old one: removing a file does not erase its blocks on flash,
        // and backups keep copies, but without its key nothing written before the sign-out can be
        // read again. A kill between the two steps leaves secrets sealed with the destroyed key:
        // they are set aside at the next start, and the device gets a new id.
        try keyring.destroy()
        try saveSecrets(StoredSecrets(deviceID: deviceID))
    }

    /// Removes the directory and everything in it, and destroys the key (a verified user's folder
    /// at sign-out; an app's own key stays).
    public func removeAll() {
        // The key first: once it is gone, whatever of the files survives (blocks on flash, a
        // backup) cannot be read. A key that cannot be deleted now seals nothing any more.
        try? keyring.destroy()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Secrets

    /// The stored secrets, or nil on first use (or when they were sealed with a key this storage
    /// no longer has; the file is then set aside).
    /// - Throws: ``ParleyError`` (`storage`) when `secrets.sealed` cannot be read, decoded or
    ///   authenticated, or the key cannot be read.
    public func loadSecrets() throws -> StoredSecrets? { try secrets.load() }

    /// Replaces `secrets.sealed` atomically (write, sync, rename), readable by the owner only.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written, or the key cannot be read.
    public func saveSecrets(_ secrets: StoredSecrets) throws { try self.secrets.save(secrets) }

    // MARK: Outbox

    /// The outbox replayed from `outbox.log` (or converted from an old `outbox.json`).
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be read, is not a journal, or holds
    ///   a record that does not authenticate.
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
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be read, is not a journal, or holds
    ///   a record that does not authenticate.
    public func loadHistory() throws -> StoredHistory { try history.load() }

    /// The epoch, summaries and each conversation's figures, without decoding events (see the
    /// type's comment).
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be read, is not a journal, or holds
    ///   a record that does not authenticate.
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
