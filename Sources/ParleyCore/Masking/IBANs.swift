/// The IBAN detector: a registry country's code, two check digits and the country's number of
/// letters and digits, unbroken or grouped by single spaces or dashes, standing alone, whose
/// check digits hold (ISO 13616: mod 97 of the rearranged number is 1). Letters may be lower case.
/// The country code and the last four characters stay; the rest becomes `•`:
/// `DE89 3704 0044 0532 0130 00` → `DE•• •••• •••• •••• ••30 00`.
enum IBANs {
    /// Masks every IBAN in the scalars.
    static func mask(_ scalars: inout [Unicode.Scalar]) {
        var index = 0
        let count = scalars.count
        while index + 3 < count {
            guard let first = MaskedScalars.letterValue(scalars[index]),
                  index == 0 || !MaskedScalars.isWordPart(scalars[index - 1]),
                  let second = MaskedScalars.letterValue(scalars[index + 1]),
                  MaskedScalars.digitValue(scalars[index + 2]) != nil, MaskedScalars.digitValue(scalars[index + 3]) != nil,
                  let length = lengths[countryCode(first, second)],
                  let positions = characters(of: scalars, from: index, count: length)
            else {
                index += 1
                continue
            }
            let values = positions.map { MaskedScalars.letterValue(scalars[$0]) ?? MaskedScalars.digitValue(scalars[$0]) ?? 0 }
            guard isValid(values) else {
                index += 1
                continue
            }
            for position in positions[2..<(length - 4)] { scalars[position] = MaskedScalars.mask }
            index = positions[positions.count - 1] + 1
        }
    }

    /// The positions of the `count` letters and digits from `start`, with at most one separator
    /// between two of them, ending at a word's end; nil when the text does not hold that many so.
    static func characters(of scalars: [Unicode.Scalar], from start: Int, count: Int) -> [Int]? {
        var positions = [start, start + 1, start + 2, start + 3]
        positions.reserveCapacity(count)
        var index = start + 4
        while positions.count < count, index < scalars.count {
            if isCharacter(scalars[index]) {
                positions.append(index)
                index += 1
            } else if MaskedScalars.isSeparator(scalars[index]), index + 1 < scalars.count, isCharacter(scalars[index + 1]) {
                index += 1
            } else {
                return nil
            }
        }
        guard positions.count == count else { return nil }
        // The IBAN must end where a word ends: `DE89…3000X` or a longer number is something else.
        if index < scalars.count && MaskedScalars.isWordPart(scalars[index]) { return nil }
        return positions
    }

    private static func isCharacter(_ scalar: Unicode.Scalar) -> Bool {
        MaskedScalars.digitValue(scalar) != nil || MaskedScalars.letterValue(scalar) != nil
    }

    /// Check digits 02–98, and the number (the first four characters moved to the end, letters
    /// as 10–35) is 1 mod 97.
    static func isValid(_ values: [Int]) -> Bool {
        guard values.count >= 5, values[0] >= 10, values[1] >= 10, values[2] < 10, values[3] < 10 else { return false }
        let check = values[2] * 10 + values[3]
        guard (2...98).contains(check) else { return false }
        var remainder = 0
        for value in values[4...] + values[..<4] {
            remainder = (value < 10 ? remainder * 10 + value : remainder * 100 + value) % 97
        }
        return remainder == 1
    }

    static func countryCode(_ first: Int, _ second: Int) -> String {
        String(UnicodeScalar(UInt8(55 + first))) + String(UnicodeScalar(UInt8(55 + second)))
    }

    /// IBAN lengths by country, from the SWIFT IBAN registry. A code not listed is not masked as an
    /// IBAN: without the length, a product code that happens to pass mod 97 (one in 97) would be.
    static let lengths: [String: Int] = [
        "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27, "BR": 29,
        "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
        "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
        "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
        "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
        "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25,
        "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
        "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
    ]
}
