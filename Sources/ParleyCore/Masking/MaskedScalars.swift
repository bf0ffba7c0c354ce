/// How the built-in detectors read a text: scalar by scalar, with the digits of every script read by
/// their value (decision 0014: a card number typed in Arabic-Indic or fullwidth digits is still a
/// card number), and with what counts as a separator, a word or a glued neighbour made explicit.
enum MaskedScalars {
    /// What a masked character becomes: U+2022 BULLET.
    static let mask: Unicode.Scalar = "\u{2022}"

    /// The value of a decimal digit of any script (Unicode `Nd`: ASCII, Arabic-Indic, Devanagari,
    /// fullwidth…), or nil.
    @inline(__always)
    static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        let value = scalar.value
        if value >= 0x30 && value <= 0x39 { return Int(value - 0x30) }
        guard value >= 0x80, scalar.properties.generalCategory == .decimalNumber,
              let number = scalar.properties.numericValue, number >= 0, number <= 9
        else { return nil }
        return Int(number)
    }

    /// The value of a Latin letter for an IBAN (A = 10 … Z = 35, either case, ASCII or fullwidth), or nil.
    @inline(__always)
    static func letterValue(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 0x41...0x5A: Int(scalar.value - 0x41) + 10
        case 0x61...0x7A: Int(scalar.value - 0x61) + 10
        case 0xFF21...0xFF3A: Int(scalar.value - 0xFF21) + 10
        case 0xFF41...0xFF5A: Int(scalar.value - 0xFF41) + 10
        default: nil
        }
    }

    /// True for what may stand between the groups of a number: spaces (including no-break, thin,
    /// figure and ideographic spaces) and dashes (hyphen-minus, hyphens, figure and en dashes,
    /// minus, fullwidth hyphen-minus).
    @inline(__always)
    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0x2D, 0xA0, 0x2007, 0x2009, 0x202F, 0x3000, 0x2010, 0x2011, 0x2012, 0x2013, 0x2212, 0xFF0D: true
        default: false
        }
    }

    /// True for a scalar that makes a number part of a word: a letter, a digit, `_`, or a combining
    /// mark (which belongs to the character before it). A number touching one is not masked, so
    /// `ABC4111111111111111` or a longer run of digits is never cut in part.
    @inline(__always)
    static func isWordPart(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A) || value == 0x5F
        }
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .decimalNumber, .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation: return true
        default: return false
        }
    }

    /// True for punctuation that joins digits into one number when a digit follows it: the decimal
    /// point and comma, the slash of a date, the colon of a time (`1,234,567`, `12/25`, `10:30`).
    @inline(__always)
    static func isNumberJoiner(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2C, 0x2E, 0x2F, 0x3A, 0x066B, 0x066C: true  // , . / : and the Arabic decimal and thousands separators
        default: false
        }
    }

    /// True when the scalar at `index` glues a number that ends (or starts) next to it into
    /// something longer: a word part, or a joiner with a digit behind it. `step` is the direction
    /// away from the number: +1 after it, -1 before it.
    static func glues(_ scalars: [Unicode.Scalar], at index: Int, step: Int) -> Bool {
        guard scalars.indices.contains(index) else { return false }
        let scalar = scalars[index]
        if isWordPart(scalar) { return true }
        if isNumberJoiner(scalar) {
            let beyond = index + step
            return scalars.indices.contains(beyond) && digitValue(scalars[beyond]) != nil
        }
        return false
    }

    /// True when the text may hold a number worth scanning: at least `minimum` decimal digits of any script.
    static func hasDigits(_ text: String, atLeast minimum: Int) -> Bool {
        var count = 0
        var hasNonASCII = false
        for byte in text.utf8 {
            if byte >= 0x30 && byte <= 0x39 {
                count += 1
                if count >= minimum { return true }
            } else if byte >= 0x80 {
                hasNonASCII = true
            }
        }
        guard hasNonASCII else { return false }
        count = 0
        for scalar in text.unicodeScalars where digitValue(scalar) != nil {
            count += 1
            if count >= minimum { return true }
        }
        return false
    }
}
