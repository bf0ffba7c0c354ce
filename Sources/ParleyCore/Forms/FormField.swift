/// One field of a ``Form``: what it asks, in which languages, and what answers it takes.
///
/// On the wire: `{"key": "email", "kind": "email", "required": true, "label": {"en": "Email",
/// "de": "E-Mail"}, "hint": {"en": "We reply here"}}`.
public struct FormField: Hashable, Sendable, Codable {
    /// The kinds of field, and the answer each takes (see ``validate(_:)``).
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// One line of text, at most ``Limits/maxSingleLineAnswerLength`` characters.
        case singleLine = "single_line"
        /// An email address (see ``EmailAddress``); its domain is lowercased.
        case email
        /// A phone number, normalised to E.164 (see ``PhoneNumber``).
        case phone
        /// Text with line breaks, at most ``Limits/maxMultiLineAnswerLength`` characters.
        case multiLine = "multi_line"
        /// One of ``FormField/options``, shown as a picker.
        case select
        /// One of ``FormField/options``, shown as radio buttons.
        case radio
        /// True or false; a required checkbox must be ticked.
        case checkbox
        /// A whole number from 1 to 5, shown as stars.
        case rating

        /// True for the kinds that choose among ``FormField/options``.
        public var hasOptions: Bool { self == .select || self == .radio }
    }

    /// One choice of a select or radio field.
    public struct Option: Hashable, Sendable, Codable {
        /// What an answer carries and what is stored; stable across languages.
        public var value: String
        /// What the visitor reads, by language tag (see ``LocalizedText``).
        public var label: [String: String]

        /// Creates an option.
        public init(value: String, label: [String: String]) {
            self.value = value
            self.label = label
        }
    }

    /// The field's name in answers: 1 to 64 characters of `a-z`, `0-9` and `_`, starting with a letter.
    public var key: String
    public var kind: Kind
    /// True when an answer must be given (for a checkbox: must be ticked).
    public var isRequired: Bool
    /// The question, by language tag (see ``LocalizedText``).
    public var label: [String: String]
    /// Help shown under the field, by language tag; empty when none.
    public var hint: [String: String]
    /// The choices of a select or radio field, in display order; empty for other kinds.
    public var options: [Option]
    /// For a phone field: the country calling code (digits, such as `49`) given to national numbers
    /// written without `+` or `00`. Nil: such numbers are refused.
    public var defaultCallingCode: String?

    /// Creates a field.
    public init(
        key: String, kind: Kind, isRequired: Bool = false, label: [String: String], hint: [String: String] = [:],
        options: [Option] = [], defaultCallingCode: String? = nil
    ) {
        self.key = key
        self.kind = kind
        self.isRequired = isRequired
        self.label = label
        self.hint = hint
        self.options = options
        self.defaultCallingCode = defaultCallingCode
    }

    /// The label for a reader's preferred languages (see ``LocalizedText/resolve(_:for:)``).
    public func label(for languages: [String]) -> String { LocalizedText.resolve(label, for: languages) ?? key }

    /// The hint for a reader's preferred languages, or nil when the field has none.
    public func hint(for languages: [String]) -> String? { LocalizedText.resolve(hint, for: languages) }

    enum CodingKeys: String, CodingKey {
        case key, kind, isRequired = "required", label, hint, options, defaultCallingCode = "default_calling_code"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        kind = try container.decode(Kind.self, forKey: .kind)
        isRequired = try container.decodeIfPresent(Bool.self, forKey: .isRequired) ?? false
        label = try container.decode([String: String].self, forKey: .label)
        hint = try container.decodeIfPresent([String: String].self, forKey: .hint) ?? [:]
        options = try container.decodeIfPresent([Option].self, forKey: .options) ?? []
        defaultCallingCode = try container.decodeIfPresent(String.self, forKey: .defaultCallingCode)
    }
}
