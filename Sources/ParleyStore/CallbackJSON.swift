import Foundation
import ParleyCore

/// How both stores keep a conversation's callback request (``Callback``) in a text column.
public enum CallbackJSON {
    /// The request in `text`; nil when the conversation is none.
    /// - Throws: when the column holds something else (the store wrote it, so that is damage, not input).
    public static func decode(_ text: String?) throws -> Callback? {
        guard let text else { return nil }
        return try ParleyJSON.decode(Callback.self, from: Data(text.utf8))
    }

    /// The request as JSON with sorted keys; nil for a conversation that is none.
    public static func encode(_ callback: Callback?) -> String? {
        guard let callback else { return nil }
        // A struct of strings, dates and numbers always encodes.
        return (try? ParleyJSON.encode(callback)).map { String(decoding: $0, as: UTF8.self) }
    }
}
