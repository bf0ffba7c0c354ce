/// The payment card detector: 13 to 19 digits, not starting with 0, that pass the Luhn check,
/// written unbroken or grouped as cards print them. Everything but the last four digits becomes
/// `•`; separators stay: `4111 1111 1111 1111` → `•••• •••• •••• 1111`.
///
/// Order numbers survive because they fail the Luhn check (nine in ten do), phone numbers because
/// they start with `+` or `0` or are grouped unlike cards, and a longer digit run or a number inside
/// a word (`ABC4111111111111111`, `…1111.50`) because a match never cuts a group or takes a glued one.
enum CardNumbers {
    /// The digits a card number has.
    static let lengths = 13...19

    /// Masks the card numbers among the run's groups, leftmost first, each the longest that fits.
    /// A window never holds more than 19 digits, so a run of thousands of groups (`1 1 1 1 …`)
    /// costs a few checks per group, not a check of every pair of groups.
    static func mask(_ run: DigitRun, in scalars: inout [Unicode.Scalar]) {
        var low = run.groups.startIndex + (run.isGluedBefore ? 1 : 0)
        let high = run.groups.endIndex - (run.isGluedAfter ? 1 : 0)
        while low < high {
            var matched: Int?
            var end = low
            var digits = 0
            while end < high {
                digits += run.groups[end].digits.count
                guard digits <= lengths.upperBound else { break }
                end += 1
                if digits >= lengths.lowerBound, isCardNumber(run.groups[low..<end]) { matched = end }
            }
            if let matched {
                DigitRun.mask(&scalars, groups: run.groups[low..<matched], keeping: 4)
                low = matched
            } else {
                low += 1
            }
        }
    }

    /// True when the groups together are a card number: its length, its grouping, no leading 0, Luhn.
    static func isCardNumber(_ groups: ArraySlice<DigitRun.Group>) -> Bool {
        let counts = groups.map(\.digits.count)
        let total = counts.reduce(0, +)
        guard lengths.contains(total), isCardGrouping(counts), let first = groups.first?.digits.first, first != 0 else { return false }
        return isLuhnValid(groups.flatMap(\.digits))
    }

    /// Unbroken; in fours with a shorter last group (`4111 1111 1111 1111`, `4222 2222 2222 2`);
    /// or Amex's 4-6-5 and Diners' 4-6-4. Other groupings are phone numbers, dates, amounts.
    static func isCardGrouping(_ counts: [Int]) -> Bool {
        if counts.count == 1 { return true }
        if counts == [4, 6, 5] || counts == [4, 6, 4] { return true }
        guard counts.count >= 4, let last = counts.last, (1...4).contains(last) else { return false }
        return counts.dropLast().allSatisfy { $0 == 4 }
    }

    /// The Luhn (mod 10) check: from the right, every second digit doubled (less 9 above 9); the
    /// sum ends in 0.
    static func isLuhnValid(_ digits: [Int]) -> Bool {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            if offset % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }
}
