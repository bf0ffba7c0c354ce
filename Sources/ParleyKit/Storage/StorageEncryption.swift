import Crypto
import Foundation

/// Where the key comes from that ``FileStorage`` seals its files with.
///
/// Every file ParleyKit writes (the outbox and history journals, the secrets) is encrypted at rest
/// with AES-256-GCM, record by record; only the key's source is a setting. There is no setting that
/// stores plain text: a chat history holds what people tell support (addresses, orders, health),
/// and a copy of an app's folder (a backup, a shared or lost device, a debugging tool) should show
/// none of it. An app that wants other files can give the client its own ``ParleyStorage``.
///
/// ```swift
/// configuration.storageEncryption = .automatic           // the default
/// configuration.storageEncryption = .key(appManagedKey)  // a SymmetricKey of 256 bits
/// ```
public struct StorageEncryption: Sendable {
    enum Source: Sendable {
        case automatic
        case key(SymmetricKey)
    }

    let source: Source

    /// A key made on first use and kept on the device, one per storage folder (so a verified
    /// user's folder has its own). The default.
    ///
    /// - On Apple platforms: a Keychain generic password (service `org.parley.storage`), readable
    ///   after the device's first unlock, on this device only (never in backups or iCloud). The
    ///   folder holds `storage.keychain-account`, the item's (random, not secret) account name.
    /// - Elsewhere (Linux): the file `storage.key` in the folder, 32 random bytes, readable by the
    ///   owner only (`0600`). It sits next to the files it seals, so it keeps the text out of those
    ///   files (one copied, indexed or attached to a bug report on its own), not from whoever copies
    ///   the whole folder; ``key(_:)`` keeps the key elsewhere.
    ///
    /// The key is destroyed at sign-out (``FileStorage/removeAll()``), and replaced at an
    /// anonymous sign-out (``FileStorage/removeHistoryAndOutbox(keepingDeviceID:)``), so that
    /// nothing written before can be read again, wherever copies of it remain.
    ///
    /// When the key is gone (the Keychain was reset, `storage.key` was deleted, the folder was
    /// restored onto another device) while files sealed with it remain, they cannot be read: each
    /// is renamed `<name>.unreadable`, a warning is logged, and the storage starts empty (a new
    /// device id; the server holds the conversations). A key that cannot be read for the moment
    /// (the Keychain before the first unlock) is not taken for a lost one: storage calls throw
    /// ``ParleyError`` (`storage`) instead.
    public static let automatic = StorageEncryption(source: .automatic)

    /// A key the app keeps itself (derived from its own secret, or kept in its own Keychain item):
    /// ParleyKit stores it nowhere, and sign-out neither destroys nor replaces it.
    ///
    /// Files sealed with another key are treated as with a lost key (see ``automatic``): set
    /// aside, and the storage starts empty.
    /// - Parameter key: a 256-bit key (`SymmetricKey(size: .bits256)`); with another size every
    ///   call of the storage throws ``ParleyError`` (`storage`).
    /// - Returns: the setting for ``ParleyConfiguration/storageEncryption`` or ``FileStorage/init(directory:encryption:compactionThreshold:logger:)``.
    public static func key(_ key: SymmetricKey) -> StorageEncryption {
        StorageEncryption(source: .key(key))
    }
}
