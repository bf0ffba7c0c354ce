import Crypto
import Foundation

/// Where a ``FileStorage`` keeps its key: the Keychain on Apple platforms, a key file elsewhere,
/// nowhere for a key the app supplies.
protocol StorageKeyStore: Sendable {
    /// The stored key, or nil when there is none (never made, or lost).
    /// - Throws: ``ParleyError`` (`storage`) when the store cannot be read now (a locked device):
    ///   that must never be taken for a lost key, which would set the files aside.
    func loadKey() throws -> SymmetricKey?
    /// Makes, stores and returns a new random 256-bit key; when another process stored one
    /// meanwhile, returns that one.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be stored.
    func makeKey() throws -> SymmetricKey
    /// Destroys the stored key: what it sealed cannot be read again, wherever copies of it lie.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be removed.
    func deleteKey() throws
}

extension StorageEncryption {
    /// The key store this setting means for a storage folder.
    func makeKeyStore(directory: URL) -> any StorageKeyStore {
        switch source {
        case .key(let key):
            return SuppliedKeyStore(key: key)
        case .automatic:
            #if canImport(Security)
            return KeychainKeyStore(accountFile: directory.appendingPathComponent(KeychainKeyStore.accountFileName))
            #else
            return KeyFileStore(url: directory.appendingPathComponent(KeyFileStore.fileName))
            #endif
        }
    }
}

/// The app's own key (``StorageEncryption/key(_:)``): never stored, never destroyed here, since
/// the app keeps it.
struct SuppliedKeyStore: StorageKeyStore {
    let key: SymmetricKey

    func loadKey() throws -> SymmetricKey? { key }
    func makeKey() throws -> SymmetricKey { key }
    func deleteKey() throws {}
}

/// The key in a file of its own (`storage.key`, 32 random bytes, `0600`): the store on platforms
/// without a Keychain.
struct KeyFileStore: StorageKeyStore {
    static let fileName = "storage.key"

    let url: URL

    func loadKey() throws -> SymmetricKey? {
        try RandomBytesFile(url: url, size: 32).read().map { SymmetricKey(data: $0) }
    }

    func makeKey() throws -> SymmetricKey {
        SymmetricKey(data: try RandomBytesFile(url: url, size: 32).make())
    }

    func deleteKey() throws {
        try RandomBytesFile(url: url, size: 32).remove()
    }
}

/// A small file of random bytes made once (a key, or the name of a Keychain item), created
/// exclusively and synced before it is used.
struct RandomBytesFile {
    let url: URL
    let size: Int

    private var name: String { url.lastPathComponent }

    /// The bytes, or nil when the file is missing. A file of another size was cut while being
    /// made (nothing was sealed with it: it is synced before its first use) and is removed.
    /// - Throws: ``ParleyError`` (`storage`) when it exists but cannot be read.
    func read() throws -> Data? {
        do {
            guard let bytes = try PosixFile.contents(of: url) else { return nil }
            guard bytes.count == size else {
                try PosixFile.remove(url)
                return nil
            }
            return bytes
        } catch {
            throw ParleyError.storage("cannot read \(name): \(error)")
        }
    }

    /// Makes the file with new random bytes (`0600`, in a `0700` folder made when missing), or,
    /// when another process made it first, reads that one.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    func make() throws -> Data {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<size).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            if try PosixFile.create(url, with: bytes) { return bytes }
        } catch {
            throw ParleyError.storage("cannot write \(name): \(error)")
        }
        guard let existing = try read() else { throw ParleyError.storage("\(name) was made and removed at once") }
        return existing
    }

    /// Removes the file (a missing one is fine).
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be removed.
    func remove() throws {
        do {
            try PosixFile.remove(url)
        } catch {
            throw ParleyError.storage("cannot remove \(name): \(error)")
        }
    }
}
