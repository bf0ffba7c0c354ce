import Foundation

/// What an app masks in the text its visitors and agents write: the built-in detectors (payment
/// card numbers, US social security numbers, IBANs), each on or off, and the admin's own patterns.
///
/// ParleyKit applies them on the device before a text is stored or sent, and parleyd again before it
/// stores anything (docs/protocol.md, "Data masking"; decision 0014). An app that never set any
/// gets ``init(masksCardNumbers:masksSocialSecurityNumbers:masksIBANs:customRules:)``'s defaults:
/// the three built-ins on, no custom rule.
public struct MaskingRules: Hashable, Sendable, Codable {
    /// Mask payment card numbers: 13 to 19 digits that pass the Luhn check, unbroken or in groups
    /// of four (or Amex's 4-6-5, Diners' 4-6-4). Default true.
    public var masksCardNumbers: Bool
    /// Mask US social security numbers written `AAA-GG-SSSS` (dashes or spaces). Default true.
    public var masksSocialSecurityNumbers: Bool
    /// Mask IBANs of the registry's countries whose length and mod-97 check digits hold. Default true.
    public var masksIBANs: Bool
    /// The admin's own rules, applied in order after the built-ins. Default none.
    public var customRules: [CustomMaskingRule]

    /// The most custom rules an app may have: 20.
    public static let maxCustomRules = 20

    /// Rules for an app.
    /// - Parameters:
    ///   - masksCardNumbers: mask Luhn-valid card numbers. Default true.
    ///   - masksSocialSecurityNumbers: mask US social security numbers. Default true.
    ///   - masksIBANs: mask IBANs. Default true.
    ///   - customRules: the admin's own patterns, applied in order after the built-ins. Default none.
    public init(
        masksCardNumbers: Bool = true, masksSocialSecurityNumbers: Bool = true, masksIBANs: Bool = true,
        customRules: [CustomMaskingRule] = []
    ) {
        self.masksCardNumbers = masksCardNumbers
        self.masksSocialSecurityNumbers = masksSocialSecurityNumbers
        self.masksIBANs = masksIBANs
        self.customRules = customRules
    }

    /// The rules of an app that never set any: every built-in on, no custom rule.
    public static let defaults = MaskingRules()

    enum CodingKeys: String, CodingKey {
        case masksCardNumbers = "card_numbers", masksSocialSecurityNumbers = "us_social_security_numbers", masksIBANs = "ibans"
        case customRules = "custom"
    }

    /// Decodes rules; an absent field takes its default (a built-in left out stays on).
    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` for a field of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        masksCardNumbers = try container.decodeIfPresent(Bool.self, forKey: .masksCardNumbers) ?? true
        masksSocialSecurityNumbers = try container.decodeIfPresent(Bool.self, forKey: .masksSocialSecurityNumbers) ?? true
        masksIBANs = try container.decodeIfPresent(Bool.self, forKey: .masksIBANs) ?? true
        customRules = try container.decodeIfPresent([CustomMaskingRule].self, forKey: .customRules) ?? []
    }
}

/// An admin's own masking rule: every match of `pattern` becomes `replacement`.
///
/// The pattern is an ICU regular expression (`NSRegularExpression`: `\d` matches the digits of
/// every script, `(?i)` ignores case). The replacement is literal text, never a template: `$1`
/// stays `$1`, so a rule can never copy what it matched into the result.
public struct CustomMaskingRule: Hashable, Sendable, Codable {
    /// What the admin calls the rule (1 to 64 characters, one line, unique in the app).
    public var name: String
    /// The regular expression (1 to 512 UTF-8 bytes), checked when the rules are set: see
    /// ``MaskingRules/check()``.
    public var pattern: String
    /// What each match becomes (1 to 64 characters, one line, not itself matched by the pattern).
    public var replacement: String

    /// The longest name, in characters: 64.
    public static let maxNameLength = 64
    /// The longest pattern, in UTF-8 bytes: 512.
    public static let maxPatternBytes = 512
    /// The longest replacement, in characters: 64.
    public static let maxReplacementLength = 64

    /// A rule.
    /// - Parameters:
    ///   - name: what the admin calls it.
    ///   - pattern: an ICU regular expression.
    ///   - replacement: the literal text each match becomes.
    public init(name: String, pattern: String, replacement: String) {
        self.name = name
        self.pattern = pattern
        self.replacement = replacement
    }
}
