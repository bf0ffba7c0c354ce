#if canImport(Security)
import Crypto
import Foundation
import ParleyCore
import Security

/// The key in the Keychain (Apple platforms): a generic password of service `org.parley.storage`,
/// accessible after the first unlock, on this device only (never in a backup, never synced).
///
/// Its account is a random name kept in the storage folder (`storage.keychain-account`, not a
/// secret), not the folder's path: an app's container path changes with updates and restores, and
/// a key found by path would be lost with it.
struct KeychainKeyStore: StorageKeyStore {
    static let accountFileName = "storage.keychain-account"
    static let service = "org.parley.storage"

    /// The file holding the item's account name.
    let accountFile: URL

    private var account: RandomBytesFile { RandomBytesFile(url: accountFile, size: 16) }

    func loadKey() throws -> SymmetricKey? {
        guard let name = try account.read() else { return nil }
        var query = Self.query(account: name)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            guard let data = result as? Data, data.count == 32 else { throw ParleyError.storage("the Keychain's storage key is not 32 bytes") }
            return SymmetricKey(data: data)
        case errSecItemNotFound:
            return nil
        default:
            // errSecInteractionNotAllowed before the first unlock, among others: not a lost key.
            throw ParleyError.storage("cannot read the storage key from the Keychain (OSStatus \(status))")
        }
    }

    func makeKey() throws -> SymmetricKey {
        let name = try account.read() ?? account.make()
        let key = SymmetricKey(size: .bits256)
        var query = Self.query(account: name)
        query[kSecValueData as String] = key.withUnsafeBytes { Data($0) }
        query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(query as CFDictionary, nil)
        if status == errSecDuplicateItem, let existing = try loadKey() { return existing }
        guard status == errSecSuccess else { throw ParleyError.storage("cannot add the storage key to the Keychain (OSStatus \(status))") }
        return key
    }

    func deleteKey() throws {
        guard let name = try account.read() else { return }
        let status = SecItemDelete(Self.query(account: name) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw ParleyError.storage("cannot delete the storage key from the Keychain (OSStatus \(status))")
        }
    }

    /// The item's identity. The data-protection Keychain on macOS too, so both platforms behave alike.
    private static func query(account: Data) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account.hexString,
            kSecUseDataProtectionKeychain as String: true,
        ]
    }
}
#endif
