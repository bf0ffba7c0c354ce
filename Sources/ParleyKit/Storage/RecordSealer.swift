import Crypto
import Foundation

/// AES-256-GCM over what ``FileStorage`` writes: each journal record and the secrets are sealed
/// on their own, with a fresh random 96-bit nonce, and stored as nonce, ciphertext and tag
/// (CryptoKit's `combined` form, 28 bytes more than the plaintext).
///
/// Each seal also authenticates a context that is not stored with the record: the file's role
/// (`history`, `outbox`, `secrets`), the file's header (which holds the key id and a random id
/// made each time the file is written whole) and the record's offset. A record copied into another
/// file, into another generation of the same file (before or after a compaction), or to another
/// place in its file fails to open, as an altered one does.
///
/// Random nonces bound a key to about 2³² seals (NIST SP 800-38D); a client writes one per
/// received event or outbox change, far fewer in a key's life, and the key changes at sign-out.
struct RecordSealer: Sendable {
    /// Bytes a sealed record has beyond its plaintext: the nonce (12) and the tag (16).
    static let overhead = 28
    /// Bytes of ``keyID``.
    static let keyIDSize = 8

    private let key: SymmetricKey
    /// Names the key in file headers without revealing it: the first 8 bytes of
    /// HMAC-SHA256(key, "parley storage key id"). A file whose header names another key was sealed
    /// with a key this storage no longer has, which is told apart from an altered record.
    let keyID: Data

    /// - Parameter key: a 256-bit key (checked by ``StorageKeyring``).
    init(key: SymmetricKey) {
        self.key = key
        let code = HMAC<SHA256>.authenticationCode(for: Data("parley storage key id".utf8), using: key)
        keyID = Data(code.prefix(Self.keyIDSize))
    }

    /// The plaintext sealed, as nonce, ciphertext and tag.
    /// - Throws: what CryptoKit throws (not expected with a 256-bit key).
    func seal(_ plaintext: Data, context: Data) throws -> Data {
        // `combined` is nil only for a nonce of another size than 12 bytes; seal makes 12-byte ones.
        try AES.GCM.seal(plaintext, using: key, authenticating: context).combined!
    }

    /// The plaintext of a sealed record, or nil when it does not authenticate (altered, sealed
    /// with another key, or moved from elsewhere).
    func open(_ sealed: Data, context: Data) -> Data? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else { return nil }
        return try? AES.GCM.open(box, using: key, authenticating: context)
    }

    /// The context a record is sealed with: its file's role, a zero byte, its file's header, and
    /// its offset in the file (big-endian, 8 bytes).
    static func context(role: String, header: Data, offset: Int) -> Data {
        context(prefix: contextPrefix(role: role, header: header), offset: offset)
    }

    /// What the contexts of one file's records share: its role, a zero byte and its header.
    static func contextPrefix(role: String, header: Data) -> Data {
        var prefix = Data(role.utf8)
        prefix.append(0)
        prefix.append(header)
        return prefix
    }

    /// A record's context from its file's prefix, in one allocation: a start opens every record of
    /// the history, and building each context piece by piece was a tenth of that.
    static func context(prefix: Data, offset: Int) -> Data {
        var context = Data(capacity: prefix.count + 8)
        context.append(prefix)
        withUnsafeBytes(of: UInt64(offset).bigEndian) { context.append(contentsOf: $0) }
        return context
    }
}
