import Crypto
import Foundation

/// Message encryption for pushes: the `aes128gcm` content coding (RFC 8188) keyed the Web Push
/// way (RFC 8291). The device keeps a P-256 key pair and a 16-byte auth secret and gives the server
/// only the public half and the secret; the server encrypts each push to them, so Apple and Google
/// carry ciphertext and learn nothing but the conversation it is about.
///
/// One record (push payloads are at most a few KB): `salt(16) ‖ rs(4) ‖ idlen(1) ‖ sender key(65) ‖
/// AES-128-GCM(plaintext ‖ 0x02)`.
public enum PushContentCoding {
    /// The record size written in headers: larger than any push payload, so there is one record.
    public static let recordSize: UInt32 = 4096

    /// Why a body could not be decrypted: not ours, altered, or for another key.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Encrypts `plaintext` for a device.
    /// - Parameters:
    ///   - receiver: the device's public key (`p256dh`).
    ///   - authSecret: the device's 16-byte auth secret.
    ///   - salt: 16 random bytes, new for every push (given only by tests that reproduce a vector).
    ///   - sender: a key pair used once (given only by tests).
    public static func encrypt(
        _ plaintext: Data, to receiver: P256.KeyAgreement.PublicKey, authSecret: Data,
        salt: Data? = nil, sender: P256.KeyAgreement.PrivateKey? = nil
    ) throws -> Data {
        guard authSecret.count == 16 else { throw Failure("the auth secret must be 16 bytes") }
        guard plaintext.count + 17 <= Int(recordSize) else { throw Failure("the payload does not fit one record") }
        let salt = salt ?? Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
        guard salt.count == 16 else { throw Failure("the salt must be 16 bytes") }
        let sender = sender ?? P256.KeyAgreement.PrivateKey()
        let senderPublic = sender.publicKey.x963Representation
        let shared = try sender.sharedSecretFromKeyAgreement(with: receiver)
        let (key, nonce) = keys(shared: shared, authSecret: authSecret, salt: salt,
                                receiverPublic: receiver.x963Representation, senderPublic: senderPublic)
        var padded = plaintext
        padded.append(0x02)  // the last (and only) record's delimiter; no padding after it
        let sealed = try AES.GCM.seal(padded, using: key, nonce: nonce)
        var body = salt
        withUnsafeBytes(of: recordSize.bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(senderPublic.count))
        body.append(senderPublic)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// Decrypts a body made by ``encrypt(_:to:authSecret:salt:sender:)`` (or any RFC 8291 sender)
    /// with the device's key pair and auth secret.
    /// - Throws: ``Failure`` for a body too short, a bad key, a failed tag (altered, or not for
    ///   this key) or a missing record delimiter.
    public static func decrypt(_ body: Data, with receiver: P256.KeyAgreement.PrivateKey, authSecret: Data) throws(Failure) -> Data {
        let bytes = [UInt8](body)
        guard bytes.count >= 21 else { throw Failure("too short for an aes128gcm header") }
        let salt = Data(bytes[0..<16])
        let recordSize = bytes[16..<20].reduce(0) { $0 << 8 | UInt32($1) }
        let idLength = Int(bytes[20])
        guard recordSize >= 18, bytes.count >= 21 + idLength + 17 else { throw Failure("a malformed aes128gcm header") }
        let senderPublic = Data(bytes[21..<(21 + idLength)])
        let record = Data(bytes[(21 + idLength)...])
        guard record.count <= Int(recordSize) else { throw Failure("more than one record") }
        let plain: Data
        do {
            let sender = try P256.KeyAgreement.PublicKey(x963Representation: senderPublic)
            let shared = try receiver.sharedSecretFromKeyAgreement(with: sender)
            let (key, nonce) = keys(shared: shared, authSecret: authSecret, salt: salt,
                                    receiverPublic: receiver.publicKey.x963Representation, senderPublic: senderPublic)
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: record.dropLast(16), tag: record.suffix(16))
            plain = try AES.GCM.open(box, using: key)
        } catch {
            throw Failure("cannot decrypt: altered, or not for this key")
        }
        // Strip the padding back to the delimiter: 0x02 ends the last record.
        guard let delimiter = plain.lastIndex(where: { $0 != 0 }), plain[delimiter] == 0x02 else {
            throw Failure("no last-record delimiter")
        }
        return Data(plain[plain.startIndex..<delimiter])
    }

    /// RFC 8291 §3.4 then RFC 8188 §2.2: the content encryption key and the nonce.
    private static func keys(shared: SharedSecret, authSecret: Data, salt: Data, receiverPublic: Data, senderPublic: Data)
        -> (SymmetricKey, AES.GCM.Nonce)
    {
        var keyInfo = Data("WebPush: info".utf8)
        keyInfo.append(0)
        keyInfo.append(receiverPublic)
        keyInfo.append(senderPublic)
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let prk = ikm.withUnsafeBytes { HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: Data($0)), salt: salt) }
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: aes128gcm\u{0}".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: nonce\u{0}".utf8), outputByteCount: 12)
        // One record, sequence number 0: the nonce is used as derived.
        let nonceBytes = nonce.withUnsafeBytes { Data($0) }
        return (cek, try! AES.GCM.Nonce(data: nonceBytes))  // 12 bytes by construction
    }
}

extension Data {
    /// Base64url without padding (RFC 4648 §5), as Web Push keys are written.
    public var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url, with or without padding; nil for anything else.
    public init?(base64URLEncoded text: String) {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !standard.contains("="), !standard.contains(where: { $0.isWhitespace }) else { return nil }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        self.init(base64Encoded: standard)
    }
}
