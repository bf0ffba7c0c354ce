import ParleyCore
import Crypto
import Foundation

/// The lightest proof: the app's backend computes `HMAC-SHA256(user id, key: the app's secret key)`
/// as lowercase hex and hands it to the app, which passes it with the user id.
public enum IdentityHash {
    /// The hash for `userID` under `secretKey`, lowercase hex (64 characters).
    public static func make(userID: String, secretKey: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(userID.utf8), using: SymmetricKey(data: Data(secretKey.utf8)))
        return Array(mac).hexString
    }

    /// Checks `hash` (hex, either case) for `userID`, comparing in constant time.
    /// - Throws: ``IdentityError`` when it does not match or is not 64 hex digits.
    static func verify(_ hash: String, userID: String, secretKey: String) throws -> VerifiedUser {
        try validateUserID(userID)
        guard let given = Self.bytes(ofHex: hash), given.count == SHA256.byteCount else {
            throw IdentityError.refused("user_hash: 64 hexadecimal digits (HMAC-SHA256 of the user id with the app's secret key)")
        }
        // `isValidAuthenticationCode` compares in constant time.
        guard HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Data(userID.utf8), using: SymmetricKey(data: Data(secretKey.utf8))) else {
            throw IdentityError.refused("user_hash does not match the user id")
        }
        return VerifiedUser(userID: userID, method: .identityHash)
    }

    private static func bytes(ofHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.value(of: digits[index]), let low = Self.value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
