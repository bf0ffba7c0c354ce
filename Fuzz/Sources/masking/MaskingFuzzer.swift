import Foundation
import FuzzSupport
import ParleyCore

/// The `Masker`'s built-in detectors over any text.
///
/// Input: a flags byte (bits 0–2 turn cards, social security numbers and IBANs off), then the text.
///
/// Checked (decision 0014, `Masker`'s documentation):
/// - masking never throws, and with every detector off returns the text unchanged;
/// - "nothing moves": the masked text has as many scalars and as many characters as the text, and
///   each scalar that changed was a digit (of any script) or an IBAN letter and became `•`;
/// - masking a masked text changes nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func maskingFuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    let flags = input.byte()
    let rules = MaskingRules(masksCardNumbers: flags & 1 == 0, masksSocialSecurityNumbers: flags & 2 == 0, masksIBANs: flags & 4 == 0)
    MaskingFuzzer.checkBuiltIns(input.restString(), rules: rules)
    return 0
}

enum MaskingFuzzer {
    static let bullet: Unicode.Scalar = "\u{2022}"

    static func checkBuiltIns(_ text: String, rules: MaskingRules) {
        let masker: Masker
        do {
            masker = try Masker(rules: rules)
        } catch {
            brokenPromise("rules without custom patterns do not compile: \(error)")
        }
        let masked = mask(text, with: masker)
        if !rules.masksCardNumbers && !rules.masksSocialSecurityNumbers && !rules.masksIBANs {
            promise(masked == text, "every detector off, yet \(text.debugDescription) became \(masked.debugDescription)")
        }
        let before = Array(text.unicodeScalars), after = Array(masked.unicodeScalars)
        promise(before.count == after.count, "\(text.debugDescription) (\(before.count) scalars) masked as \(masked.debugDescription) (\(after.count))")
        promise(text.count == masked.count, "\(text.debugDescription) (\(text.count) characters) masked as \(masked.debugDescription) (\(masked.count))")
        for (old, new) in zip(before, after) where old != new {
            promise(new == bullet && (isDigit(old) || isIBANLetter(old)),
                    "masking turned U+\(String(old.value, radix: 16)) into U+\(String(new.value, radix: 16)) in \(text.debugDescription)")
        }
        let twice = mask(masked, with: masker)
        promise(twice == masked, "not idempotent: \(text.debugDescription) → \(masked.debugDescription) → \(twice.debugDescription)")
    }

    static func mask(_ text: String, with masker: Masker) -> String {
        do {
            return try masker.mask(text)
        } catch {
            brokenPromise("the built-in detectors threw for \(text.debugDescription): \(error)")
        }
    }

    /// A decimal digit of any script, as the detectors read them (Unicode `Nd`).
    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar) || scalar.properties.generalCategory == .decimalNumber
    }

    /// A Latin letter an IBAN may hold: ASCII or fullwidth, either case.
    static func isIBANLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0xFF21...0xFF3A, 0xFF41...0xFF5A: true
        default: false
        }
    }
}
