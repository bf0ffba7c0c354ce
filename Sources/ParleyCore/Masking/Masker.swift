import Foundation

/// Applies an app's ``MaskingRules`` to text: the built-in detectors first (IBANs, then social
/// security and card numbers), then the custom rules in order.
///
/// Pure and deterministic: the same rules and text give the same result on the device and on the
/// server, and masking a masked text changes nothing more. Made once per set of rules (it compiles
/// the custom patterns) and safe to share between tasks.
///
/// ```swift
/// let masker = try Masker(rules: .defaults)
/// try masker.mask("card 4111 1111 1111 1111")   // "card •••• •••• •••• 1111"
/// ```
public struct Masker: Sendable {
    /// The rules it applies.
    public let rules: MaskingRules
    private let customRules: [CompiledMaskingRule]

    /// The default rules' masker (every built-in, no custom rule): what ParleyKit applies before it
    /// has read the app's rules.
    public static let builtIn = Masker(compiled: .defaults, customRules: [])

    /// A masker for `rules`, compiling their custom patterns.
    /// - Parameter rules: the rules to apply.
    /// - Throws: ``Validation/Failure`` naming the custom rule whose pattern does not compile.
    ///   It does not run ``MaskingRules/check()``: rules read from the server passed it there.
    public init(rules: MaskingRules) throws(Validation.Failure) {
        var compiled: [CompiledMaskingRule] = []
        for (index, rule) in rules.customRules.enumerated() {
            do {
                compiled.append(try CompiledMaskingRule(rule))
            } catch {
                throw Validation.Failure(field: "custom[\(index)].pattern", message: "not a valid regular expression")
            }
        }
        self.init(compiled: rules, customRules: compiled)
    }

    private init(compiled rules: MaskingRules, customRules: [CompiledMaskingRule]) {
        self.rules = rules
        self.customRules = customRules
    }

    /// The text with everything the rules find masked.
    /// - Parameters:
    ///   - text: the text as written.
    ///   - field: the field the text came in, named in the failure.
    /// - Returns: the masked text; `text` itself when nothing matched.
    /// - Throws: ``Validation/Failure`` for `field` when a custom rule needed more work than its
    ///   limit for this text: nothing unchecked is let through (decision 0014).
    public func mask(_ text: String, field: String = "text") throws(Validation.Failure) -> String {
        var masked = maskBuiltIn(text)
        for rule in customRules {
            guard let replaced = rule.apply(to: masked) else {
                throw Validation.Failure(
                    field: field, message: "could not be checked for sensitive data: the masking rule \"\(rule.rule.name)\" took too long; shorten the text")
            }
            masked = replaced
        }
        return masked
    }

    /// The built-in detectors alone.
    func maskBuiltIn(_ text: String) -> String {
        // Nothing to look at without digits: most messages leave here after one pass over their bytes.
        let needsNumbers = rules.masksCardNumbers || rules.masksSocialSecurityNumbers
        guard (rules.masksIBANs && MaskedScalars.hasDigits(text, atLeast: 2)) || (needsNumbers && MaskedScalars.hasDigits(text, atLeast: 9))
        else { return text }
        var scalars = Array(text.unicodeScalars)
        let original = scalars
        // Until nothing changes: a pass can leave digits that form a number only once their
        // neighbours are masked (a card's last four, still shown, and the groups after it), and
        // masking a masked text must change nothing (decision 0014: a resend is a duplicate). Each
        // pass that changes something masks at least one digit, so this ends.
        while true {
            let before = scalars
            if rules.masksIBANs { IBANs.mask(&scalars) }
            if needsNumbers {
                for run in DigitRun.runs(in: scalars) where !run.isPhoneNumber {
                    if rules.masksSocialSecurityNumbers, SocialSecurityNumbers.mask(run, in: &scalars) { continue }
                    if rules.masksCardNumbers { CardNumbers.mask(run, in: &scalars) }
                }
            }
            if scalars == before { break }
        }
        guard scalars != original else { return text }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}
