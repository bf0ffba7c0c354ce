import ParleyCore
import Crypto
import Foundation
import Logging

/// One ``FileStorage``'s key, shared by its files: read from its ``StorageKeyStore`` on first use
/// (or made when there is none), and what a file sealed with another key becomes.
final class StorageKeyring: Sendable {
    private let store: any StorageKeyStore
    private let logger: Logger
    private let sealer = Locked<RecordSealer?>(nil)

    init(store: any StorageKeyStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The sealer of the storage's key, made when there is none yet.
    /// - Throws: ``ParleyError`` (`storage`) when the key cannot be read or stored, or is not 256 bits.
    func current() throws -> RecordSealer {
        try sealer.withLock { sealer in
            if let sealer { return sealer }
            let key = try store.loadKey() ?? store.makeKey()
            guard key.bitCount == 256 else { throw ParleyError.storage("the storage key has \(key.bitCount) bits, not 256") }
            let made = RecordSealer(key: key)
            sealer = made
            return made
        }
    }

    /// Destroys the key; the next ``current()`` makes a new one (an app's own key stays).
    /// - Throws: ``ParleyError`` (`storage`) when the key cannot be removed.
    func destroy() throws {
        try sealer.withLock { sealer in
            try store.deleteKey()
            sealer = nil
        }
    }

    /// Moves a file sealed with a key this storage does not have to `<name>.unreadable` (replacing
    /// an earlier one), so the storage goes on as if it were missing; the bytes stay for whoever
    /// still has the key. Never read again; removed at sign-out.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be moved.
    func setAside(_ url: URL) throws {
        let aside = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + Self.unreadableSuffix)
        logger.warning("stored file sealed with another key set aside; the storage starts without it",
                       metadata: ["parley.file": "\(url.lastPathComponent)"])
        do {
            try PosixFile.move(url, to: aside)
        } catch {
            throw ParleyError.storage("cannot set \(url.lastPathComponent) aside: \(error)")
        }
    }

    static let unreadableSuffix = ".unreadable"
}
