/// Limits that both sides of the protocol know; the server enforces them, the SDK checks them early.
public enum Limits {
    /// The longest message text, in Unicode characters (extended grapheme clusters): 10,000.
    public static let maxMessageLength = 10_000
    /// The longest message text in UTF-8 bytes: 40,000 (any 10,000 ordinary characters fit; long
    /// emoji sequences or stacked combining marks are bounded by this instead).
    public static let maxMessageBytes = 40_000
    /// The largest WebSocket message the server reads, in bytes: 256 KiB, enough for a send frame of
    /// the longest message even when every byte needs a JSON escape. Larger closes with 1009.
    public static let maxFrameBytes = 256 * 1024
    /// The largest HTTP request body the server reads, in bytes: 256 KiB. Larger is a 413.
    public static let maxRequestBodyBytes = 256 * 1024
    /// The longest subject of a conversation, in characters.
    public static let maxSubjectLength = 200
    /// The longest caption of an attachment, in characters (it travels in the upload's query).
    public static let maxCaptionLength = 1_000
    /// The longest URL a pushed page or a link policy takes.
    public static let maxURLLength = 2_048
    /// The longest title of a pushed page.
    public static let maxPageTitleLength = 200
    /// Longest canned response shortcut (the word typed after "/").
    public static let maxShortcutLength = 32
    /// The most custom attributes a visitor or conversation may carry, and their key and value lengths.
    public static let maxAttributes = 50
    public static let maxAttributeKeyLength = 64
    public static let maxAttributeValueLength = 1_000
    /// The longest long-poll wait the server grants, in seconds.
    /// The most events a transcript is made of (about a day of busy chat); longer histories are read by page.
    public static let maxTranscriptEvents: Int64 = 20_000
    /// Characters in a rating's comment.
    public static let maxRatingCommentLength = 2_000
    public static let maxLongPollSeconds = 30
    /// The most events one page of history returns.
    public static let maxEventPage = 500
}
