import Foundation

/// The input rules both the server and the SDK apply, so both sides always agree.
public enum Validation {
    /// A rule that an input broke, with a message fit for a developer.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The field that is wrong, as named on the wire.
        public var field: String
        public var message: String
        /// True when the input is too large rather than malformed (HTTP 413 rather than 400).
        public var isTooLarge: Bool
        public init(field: String, message: String, isTooLarge: Bool = false) {
            self.field = field
            self.message = message
            self.isTooLarge = isTooLarge
        }
        public var description: String { "\(field): \(message)" }
    }

    /// Checks a message text: not empty or blank, at most ``Limits/maxMessageLength`` characters
    /// and ``Limits/maxMessageBytes`` UTF-8 bytes.
    public static func messageText(_ text: String, field: String = "text") throws(Failure) {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw Failure(field: field, message: "a message needs some text")
        }
        if text.utf8.count > Limits.maxMessageBytes || text.count > Limits.maxMessageLength {
            throw Failure(field: field, message: "a message has at most \(Limits.maxMessageLength) characters (\(Limits.maxMessageBytes) bytes)", isTooLarge: true)
        }
    }

    /// Checks an attachment's caption: empty, or at most ``Limits/maxCaptionLength`` characters.
    public static func caption(_ text: String, field: String = "caption") throws(Failure) {
        if text.count > Limits.maxCaptionLength || text.utf8.count > 4 * Limits.maxCaptionLength {
            throw Failure(field: field, message: "a caption has at most \(Limits.maxCaptionLength) characters")
        }
    }

    /// Checks an attachment's file name: 1 to 255 characters, no path separators, no control
    /// characters, not `.` or `..`. A name is refused, never repaired (it is stored as given).
    public static func fileName(_ name: String, field: String = "name") throws(Failure) {
        let bad = name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.properties.generalCategory == .control || $0.properties.generalCategory == .format && $0.value == 0x202E }
        guard (1...255).contains(name.count), name.utf8.count <= 1_020, !bad, name != ".", name != "..",
              !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Failure(field: field, message: "a file name of 1 to 255 characters, without / \\ or control characters")
        }
    }

    /// Checks a canned response's shortcut: 1 to 32 characters of `a-z`, `0-9`, `-` and `_`.
    public static func shortcut(_ shortcut: String) throws(Failure) {
        guard (1...Limits.maxShortcutLength).contains(shortcut.utf8.count),
              shortcut.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F })
        else { throw Failure(field: "shortcut", message: "use 1 to \(Limits.maxShortcutLength) characters of a-z, 0-9, - and _") }
    }

    /// Checks a client message id: 1 to 100 printable ASCII characters (a UUID fits).
    public static func clientMessageID(_ id: String, field: String = "client_message_id") throws(Failure) {
        guard (1...100).contains(id.utf8.count), id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Failure(field: field, message: "use 1 to 100 printable ASCII characters, such as a UUID")
        }
    }

    /// Checks custom attributes: at most ``Limits/maxAttributes`` pairs, keys and values within their lengths.
    public static func attributes(_ attributes: [String: String], field: String = "attributes") throws(Failure) {
        if attributes.count > Limits.maxAttributes {
            throw Failure(field: field, message: "at most \(Limits.maxAttributes) attributes")
        }
        for (key, value) in attributes {
            if key.isEmpty || key.count > Limits.maxAttributeKeyLength {
                throw Failure(field: field, message: "attribute keys have 1 to \(Limits.maxAttributeKeyLength) characters")
            }
            if value.count > Limits.maxAttributeValueLength {
                throw Failure(field: field, message: "attribute values have at most \(Limits.maxAttributeValueLength) characters")
            }
        }
    }

    /// Checks a short single-line text such as a name or subject.
    public static func shortText(_ text: String, field: String, maxLength: Int = Limits.maxSubjectLength, required: Bool = false) throws(Failure) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if required && trimmed.isEmpty { throw Failure(field: field, message: "must not be empty") }
        if text.count > maxLength { throw Failure(field: field, message: "at most \(maxLength) characters") }
        if text.contains(where: \.isNewline) { throw Failure(field: field, message: "must be a single line") }
    }

    /// Checks an email address loosely: one `@`, something on each side, a dot in the domain, no spaces.
    public static func email(_ text: String, field: String = "email") throws(Failure) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
              !parts[1].hasSuffix("."), text.count <= 254, !text.contains(where: \.isWhitespace)
        else { throw Failure(field: field, message: "not an email address") }
    }

    /// Checks a device id: 8 to 128 printable ASCII characters.
    public static func deviceID(_ id: String) throws(Failure) {
        guard (8...128).contains(id.utf8.count), id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Failure(field: "device_id", message: "use 8 to 128 printable ASCII characters")
        }
    }
}
