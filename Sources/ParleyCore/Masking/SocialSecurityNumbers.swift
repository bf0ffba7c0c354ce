/// The US social security number detector: `AAA-GG-SSSS` with one dash or space between the
/// parts, standing alone, in the ranges the SSA issues (area 001–899 but not 666, group 01–99,
/// serial 0001–9999). Everything but the serial becomes `•`: `123-45-6789` → `•••-••-6789`.
///
/// Nine digits written without separators are not masked: most nine-digit numbers (orders,
/// accounts, phone numbers without their area code) would pass those ranges (decision 0014). An
/// admin who wants them masked adds a custom rule.
enum SocialSecurityNumbers {
    /// Masks the run when it is a social security number; true when it did.
    static func mask(_ run: DigitRun, in scalars: inout [Unicode.Scalar]) -> Bool {
        guard isSocialSecurityNumber(run) else { return false }
        DigitRun.mask(&scalars, groups: run.groups[...], keeping: 4)
        return true
    }

    static func isSocialSecurityNumber(_ run: DigitRun) -> Bool {
        guard !run.isGluedBefore, !run.isGluedAfter, !run.isPhoneNumber, run.groups.map(\.digits.count) == [3, 2, 4],
              run.groups.dropFirst().allSatisfy({ $0.separatorsBefore == 1 })
        else { return false }
        let number = { (digits: [Int]) in digits.reduce(0) { $0 * 10 + $1 } }
        let area = number(run.groups[0].digits), group = number(run.groups[1].digits), serial = number(run.groups[2].digits)
        return (1...899).contains(area) && area != 666 && group != 0 && serial != 0
    }
}
