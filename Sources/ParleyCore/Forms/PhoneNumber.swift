import Foundation

/// Phone numbers as forms accept them, normalised to E.164: `+` then 8 to 15 digits, country code first.
///
/// What is read:
/// - Digits with any of the separators space, `-`, `.`, `(` and `)` (parentheses paired, not nested).
/// - International numbers start with `+` or the `00` prefix: `+49 30 1234567`, `0049 30 1234567`.
///   A `(0)` after the country code, as in `+49 (0)30 1234567`, is the trunk prefix and is dropped.
/// - National numbers (no `+`, no `00`) take the field's default calling code; one leading trunk `0`
///   is dropped first (`030 1234567` with `49` → `+49301234567`), except for Italy (`39`) and San Marino
///   (`378`), whose leading 0 belongs to the number. Without a default code they are refused.
///
/// Refused: letters (no vanity numbers or `ext.`), any other character, `+` anywhere but first,
/// a country code starting with 0, fewer than 8 or more than 15 digits in the result.
/// Whether the number is assigned, or right for its country, is not checked.
public enum PhoneNumber {
    static let separators: Set<Character> = [" ", "-", ".", "(", ")"]
    /// Calling codes whose national numbers keep their leading 0 in international form.
    static let keepsLeadingZero: Set<String> = ["39", "378"]

    /// The number in E.164 (`+4930…`), or nil when it cannot be read.
    /// - Parameters:
    ///   - text: the number as typed.
    ///   - defaultCallingCode: digits such as `49`, for numbers written without `+` or `00`.
    public static func normalize(_ text: String, defaultCallingCode: String?) -> String? {
        var number = text.trimmingWhitespace()
        guard !number.isEmpty, parenthesesArePaired(number) else { return nil }
        let isPlus = number.hasPrefix("+")
        if isPlus { number.removeFirst() }
        guard number.allSatisfy({ $0.isASCII && ($0.isNumber || separators.contains($0)) }) else { return nil }
        var digits = number.filter(\.isNumber)
        let isInternational = isPlus || digits.hasPrefix("00")
        if isInternational {
            // The "00" prefix goes first, from the text, so a "(0)" can only be a trunk after the
            // country code ("+49 (0)30 1234567", "0049 (0)30…"), never a digit of the prefix.
            if !isPlus { number = Self.droppingDigits(2, from: number) }
            digits = number.replacingOccurrences(of: "(0)", with: "", options: []).filter(\.isNumber)
        } else {
            guard let code = defaultCallingCode, isCallingCode(code) else { return nil }
            if digits.hasPrefix("0") && !keepsLeadingZero.contains(code) { digits.removeFirst() }
            digits = code + digits
        }
        guard (8...15).contains(digits.count), digits.first != "0" else { return nil }
        return "+" + digits
    }

    /// True for a country calling code: 1 to 3 digits, not starting with 0.
    public static func isCallingCode(_ code: String) -> Bool {
        (1...3).contains(code.count) && code.allSatisfy { $0.isASCII && $0.isNumber } && code.first != "0"
    }

    /// `text` after its first `count` digits (and the separators before them).
    static func droppingDigits(_ count: Int, from text: String) -> String {
        var dropped = 0
        var index = text.startIndex
        while dropped < count, index < text.endIndex {
            if text[index].isNumber { dropped += 1 }
            index = text.index(after: index)
        }
        return String(text[index...])
    }

    static func parenthesesArePaired(_ text: String) -> Bool {
        var isOpen = false
        for character in text {
            if character == "(" {
                if isOpen { return false }
                isOpen = true
            } else if character == ")" {
                if !isOpen { return false }
                isOpen = false
            }
        }
        return !isOpen
    }
}
