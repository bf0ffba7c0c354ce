import Crypto
import Foundation

/// Seals secrets the server must keep but never show again (webhook signing secrets; push
/// credentials later) with AES-256-GCM under the server's secrets key, so a copy of the database
/// alone does not give them away. A sealed value reads `v1.<key id>.<base64 nonce‖ciphertext‖tag>`;
/// the key id (the first 8 hex digits of the key's SHA-256) tells a node that holds another key
/// why it cannot open it. The key comes from `parleyd --secrets-key-file` / `PARLEY_SECRETS_KEY`
/// (docs/operations.md); every node of a shared database needs the same one.
public struct SecretBox: Sendable {
    private let key: SymmetricKey
    /// Names the key in sealed values.
    public let keyID: String

    /// A box for a 32-byte key.
    /// - Throws: ``SecretBoxError`` when the key is not 32 bytes.
    public init(key: Data) throws {
        guard key.count == 32 else { throw SecretBoxError("the secrets key must be 32 bytes (it is \(key.count))") }
        self.key = SymmetricKey(data: key)
        keyID = SHA256.hash(data: key).prefix(4).map { String(format: "%02x", $0) }.joined()
    }

    /// Seals `secret`; each call uses a fresh nonce.
    public func seal(_ secret: String) throws -> String {
        let box = try AES.GCM.seal(Data(secret.utf8), using: key)
        guard let combined = box.combined else { throw SecretBoxError("sealing failed") }
        return "v1.\(keyID).\(combined.base64EncodedString())"
    }

    /// Opens a value sealed by ``seal(_:)`` with the same key.
    /// - Throws: ``SecretBoxError`` for another key, or a value that was altered.
    public func open(_ sealed: String) throws -> String {
        let parts = sealed.split(separator: ".", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == "v1", let data = Data(base64Encoded: parts[2]) else { throw SecretBoxError("not a sealed secret") }
        guard parts[1] == keyID else {
            throw SecretBoxError("sealed with another secrets key (\(parts[1]); this server holds \(keyID))")
        }
        do {
            let plain = try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key)
            return String(decoding: plain, as: UTF8.self)
        } catch {
            throw SecretBoxError("a sealed secret did not open: it was altered")
        }
    }
}

/// A secret that could not be sealed or opened.
public struct SecretBoxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
