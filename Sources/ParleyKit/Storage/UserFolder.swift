import Foundation
import ParleyCore

/// The folder of a verified user's files inside the storage location: `users/<hash>`, a stable
/// 64-bit FNV-1a hash of the app and user ids, so the user id itself is not a file name on the device.
enum UserFolder {
    static func name(app: AppID, user: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(app.rawValue)\u{0}\(user)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return "users/" + String(hash, radix: 16)
    }
}
