import Crypto
import Foundation
import ParleyCore
import ParleyCrypto
import ParleyKit
import ParleyTestSupport
import Testing

/// Encrypted pushes: RFC 8291's published example byte for byte, the `http-ece` package (PyPI) on
/// the other side in both directions, and ParleyKit reading what the server sends.
struct PushEncryptionTests {
    // RFC 8291, Appendix A.
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let receiverPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_"
        + "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    static func bytes(_ text: String) throws -> Data { try #require(Data(base64URLEncoded: text)) }

    static func rfcKeys() throws -> PushKeys {
        try PushKeys(privateKey: bytes(receiverPrivate), authSecret: bytes(authSecret))
    }

    @Test func encrypt_reproducesRFC8291sExample_byteForByte() throws {
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: Self.bytes(Self.receiverPublic))
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Self.senderPrivate))
        let sealed = try PushContentCoding.encrypt(Data(Self.plaintext.utf8), to: receiver, authSecret: Self.bytes(Self.authSecret),
                                                   salt: Self.bytes(Self.salt), sender: sender)
        #expect(sealed.base64URLEncoded == Self.body)
    }

    @Test func decrypt_opensRFC8291sExample_andRefusesAlteredOrForeignBodies() throws {
        let keys = try Self.rfcKeys()
        #expect(keys.publicKey == Self.receiverPublic)
        let body = try Self.bytes(Self.body)
        #expect(String(decoding: try keys.decrypt(body), as: UTF8.self) == Self.plaintext)

        // The record size (bytes 16–19) only bounds a record; every other byte is bound to the key or the tag.
        for index in [0, 15, 20, 30, body.count - 20, body.count - 1] {
            var altered = body
            altered[index] ^= 0x01
            #expect(throws: PushContentCoding.Failure.self, "byte \(index) altered") { try keys.decrypt(altered) }
        }
        #expect(throws: PushContentCoding.Failure.self) { try PushKeys().decrypt(body) }
        #expect(throws: PushContentCoding.Failure.self) { try keys.decrypt(body.prefix(40)) }
    }

    @Test func keys_roundTripTheirRawForm_andSealToEachOther() throws {
        let keys = PushKeys()
        let again = try PushKeys(rawRepresentation: keys.rawRepresentation)
        #expect(again.publicKey == keys.publicKey && again.authSecret == keys.authSecret)
        #expect(throws: ParleyError.self) { try PushKeys(rawRepresentation: Data(count: 47)) }

        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: Self.bytes(keys.publicKey))
        let message = Data("Grace: your parcel left the depot 📦".utf8)
        let first = try PushContentCoding.encrypt(message, to: receiver, authSecret: keys.authSecret)
        let second = try PushContentCoding.encrypt(message, to: receiver, authSecret: keys.authSecret)
        #expect(first != second, "a new salt and sender key every time")
        #expect(try again.decrypt(first) == message && again.decrypt(second) == message)
    }

    /// The other side is `http-ece` (PyPI), run from the repository's `.venv` (`scripts/test.sh`
    /// installs Tests/Push/requirements.txt there).
    @Test func httpECE_opensWhatWeSeal_andWeOpenWhatItSeals() throws {
        let script = WebPushPython.script
        let keys = PushKeys()
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: Self.bytes(keys.publicKey))
        let message = "Grace: ¿dónde está mi pedido? 🍉"
        let sealed = try PushContentCoding.encrypt(Data(message.utf8), to: receiver, authSecret: keys.authSecret)
        let private32 = keys.rawRepresentation.prefix(32).base64URLEncoded
        let opened = try WebPushPython.run([script, "decrypt", sealed.base64URLEncoded, private32, keys.authSecretText])
        #expect(String(decoding: try Self.bytes(opened), as: UTF8.self) == message)

        let theirs = try WebPushPython.run([script, "encrypt", Data(message.utf8).base64URLEncoded, keys.publicKey, keys.authSecretText])
        #expect(String(decoding: try keys.decrypt(Self.bytes(theirs)), as: UTF8.self) == message)
    }

    @Test func aParleyPush_namesItsConversation_andOpensWithTheDevicesKeys() throws {
        let conversation = try #require(ConversationID(validating: "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q"))
        let content = PushContent(kind: .message, conversationID: conversation, seq: 14, title: "Grace", body: "Your parcel left the depot", badge: 2)
        let keys = PushKeys()
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: Self.bytes(keys.publicKey))
        let sealed = try PushContentCoding.encrypt(ParleyJSON.encode(content), to: receiver, authSecret: keys.authSecret)
        let envelope = PushEnvelope(conversationID: conversation, encrypted: sealed.base64URLEncoded)
        let object = try #require(try JSONSerialization.jsonObject(with: ParleyJSON.encode(envelope)) as? [String: Any])

        // APNs: an object beside `aps`; FCM: the same JSON as text in the data.
        let apns: [AnyHashable: Any] = ["aps": ["alert": ["title": "New message"], "mutable-content": 1], "parley": object]
        let fcm: [AnyHashable: Any] = ["parley": String(decoding: try ParleyJSON.encode(envelope), as: UTF8.self)]
        for userInfo in [apns, fcm] {
            #expect(try ParleyPush.handleRemoteNotification(userInfo) == conversation)
            #expect(try ParleyPush.decryptNotification(userInfo, keys: keys) == content)
            #expect(throws: ParleyPush.Failure.self) { try ParleyPush.decryptNotification(userInfo, keys: PushKeys()) }
            #expect(throws: ParleyPush.Failure.self) { try ParleyPush.decryptNotification(userInfo, keys: nil) }
        }
        // In the clear, no keys are needed.
        let plain: [AnyHashable: Any] = ["parley": String(decoding: try ParleyJSON.encode(PushEnvelope(conversationID: conversation, content: content)), as: UTF8.self)]
        #expect(try ParleyPush.decryptNotification(plain, keys: nil) == content)

        // Not Parley's, another version, or a sealed conversation that differs from the visible one.
        #expect(throws: ParleyPush.Failure.notParley) { try ParleyPush.handleRemoteNotification(["aps": ["alert": "Sale!"]]) }
        #expect(throws: ParleyPush.Failure.self) { try ParleyPush.handleRemoteNotification(["parley": #"{"v":2,"conversation_id":"cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q"}"#]) }
        let other = try #require(ConversationID(validating: "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1R"))
        let lying = PushEnvelope(conversationID: other, encrypted: sealed.base64URLEncoded)
        #expect(throws: ParleyPush.Failure.self) {
            try ParleyPush.decryptNotification(["parley": String(decoding: try ParleyJSON.encode(lying), as: UTF8.self)], keys: keys)
        }
    }
}

/// Runs Tests/Push/ece.py with the repository's `.venv` Python.
enum WebPushPython {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var script: String { root.appendingPathComponent("Tests/Push/ece.py").path }

    struct Failed: Error, CustomStringConvertible { var description: String }

    static func run(_ arguments: [String]) throws -> String {
        let python = root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Failed(description: ".venv/bin/python is missing: run scripts/test.sh, or python3 -m venv .venv && .venv/bin/pip install -r Tests/Push/requirements.txt")
        }
        // Standard error to a file: reading two pipes one after the other could block on the second.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ece-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let process = try SpawnedProcess(python, arguments: arguments, output: .pipe, errors: .file(log))
        let data = process.output!.readDataToEndOfFile()  // a pipe: asked for above
        let end = process.waitUntilExit()
        guard end.succeeded else {
            let problem = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw Failed(description: "ece.py failed (\(end)): \(problem)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
