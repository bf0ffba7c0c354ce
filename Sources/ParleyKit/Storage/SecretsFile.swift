import Foundation
import ParleyCore

/// ``FileStorage``'s secrets (device id, session token): `secrets.sealed`, replaced whole and
/// atomically, readable by the owner only.
///
/// Layout: a 16-byte header (`PRLYSEC1` and the key id, as in ``JournalFile``), then the JSON of
/// ``StoredSecrets`` sealed with AES-GCM (``RecordSealer``), authenticating the role `secrets`, the
/// header and the offset. The `secrets.json` of earlier versions (plain JSON) is read when there is
/// no sealed file, written sealed and removed.
struct SecretsFile {
    static let name = "secrets.sealed"
    static let legacyName = "secrets.json"
    static let magic = Array("PRLYSEC1".utf8)
    static let headerSize = 8 + RecordSealer.keyIDSize

    let url: URL
    let legacyURL: URL
    let keyring: StorageKeyring

    init(directory: URL, keyring: StorageKeyring) {
        url = directory.appendingPathComponent(Self.name)
        legacyURL = directory.appendingPathComponent(Self.legacyName)
        self.keyring = keyring
    }

    /// The stored secrets, or nil when there are none (first use, or sealed with a key this
    /// storage no longer has: the file is then set aside).
    /// - Throws: ``ParleyError`` (`storage`) when the file cannot be read, is not a secrets file, or
    ///   does not authenticate.
    func load() throws -> StoredSecrets? {
        if let legacy = try Self.contents(of: legacyURL) {
            try migrate(legacy)
        }
        guard let data = try Self.contents(of: url) else { return nil }
        let sealer = try keyring.current()
        guard data.count >= Self.headerSize, data.prefix(Self.magic.count).elementsEqual(Self.magic) else {
            throw ParleyError.storage("\(Self.name) is not a Parley secrets file")
        }
        let header = Data(data.prefix(Self.headerSize))
        guard header.suffix(RecordSealer.keyIDSize) == sealer.keyID else {
            try keyring.setAside(url)
            return nil
        }
        let context = RecordSealer.context(role: "secrets", header: header, offset: Self.headerSize)
        guard let json = sealer.open(Data(data.dropFirst(Self.headerSize)), context: context) else {
            throw ParleyError.storage("\(Self.name) does not authenticate (altered on disk, or copied from elsewhere)")
        }
        do {
            return try ParleyJSON.decode(StoredSecrets.self, from: json)
        } catch {
            throw ParleyError.storage("\(Self.name) is unreadable: \(error)")
        }
    }

    /// Replaces the file atomically (write, sync, rename), readable by the owner only.
    /// - Throws: ``ParleyError`` (`storage`) when it cannot be written.
    func save(_ secrets: StoredSecrets) throws {
        let json: Data
        do {
            json = try ParleyJSON.encode(secrets)
        } catch {
            throw ParleyError.storage("cannot encode the secrets: \(error)")
        }
        try write(json)
    }

    private func write(_ json: Data) throws {
        let sealer = try keyring.current()
        var file = Data(Self.magic)
        file.append(sealer.keyID)
        let context = RecordSealer.context(role: "secrets", header: file, offset: Self.headerSize)
        do {
            file.append(try sealer.seal(json, context: context))
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try PosixFile.replace(url, with: file)
        } catch {
            throw ParleyError.storage("cannot write \(Self.name): \(error)")
        }
    }

    /// Seals the plain `secrets.json` of an earlier version and removes it. With a sealed file
    /// already there, a kill came between the two steps: the sealed one holds the same.
    private func migrate(_ legacy: Data) throws {
        if try Self.contents(of: url) == nil {
            do {
                // Decoded first, so a file that is not secrets fails here and is not sealed.
                _ = try ParleyJSON.decode(StoredSecrets.self, from: legacy)
            } catch {
                throw ParleyError.storage("\(Self.legacyName) is unreadable: \(error)")
            }
            try write(legacy)
        }
        do {
            try PosixFile.remove(legacyURL)
        } catch {
            throw ParleyError.storage("cannot remove \(Self.legacyName): \(error)")
        }
    }

    private static func contents(of url: URL) throws -> Data? {
        do {
            return try PosixFile.contents(of: url)
        } catch {
            throw ParleyError.storage("\(url.lastPathComponent) is unreadable: \(error)")
        }
    }
}
