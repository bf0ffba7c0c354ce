/// Limits of forms and their answers; the server enforces them, ParleyKit checks them before sending.
extension Limits {
    /// The most fields one form may have: 30.
    public static let maxFormFields = 30
    /// The longest field key, in characters: 64 (`a-z`, `0-9`, `_`, starting with a letter).
    public static let maxFormFieldKeyLength = 64
    /// The longest label in one language, in characters: 200.
    public static let maxFormLabelLength = 200
    /// The longest hint in one language, in characters: 500.
    public static let maxFormHintLength = 500
    /// The most languages one label or hint may carry: 30.
    public static let maxFormLanguages = 30
    /// The most options a select or radio field may offer: 50.
    public static let maxFormOptions = 50
    /// The longest option value, in characters: 100.
    public static let maxFormOptionValueLength = 100
    /// The longest single-line answer, in characters after trimming: 200.
    public static let maxSingleLineAnswerLength = 200
    /// The longest multi-line answer, in characters after trimming: 4,000.
    public static let maxMultiLineAnswerLength = 4_000
    /// The longest email address, in characters: 254 (RFC 5321's path limit less the angle brackets).
    public static let maxEmailLength = 254
}
