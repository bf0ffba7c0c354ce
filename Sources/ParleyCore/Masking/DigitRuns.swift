/// Numbers in a text as the card and social security detectors see them: runs of digit groups
/// joined by short separators, each run knowing whether it is glued to its neighbours.
///
/// `Card 4111 1111 1111 1111, exp 12/25` holds two runs: `4111 1111 1111 1111` (four groups,
/// free on both sides) and `12/25`, which is not one run but two glued ones (`12` glued after,
/// `25` glued before), because a slash between digits makes one number of them.
struct DigitRun {
    /// One unbroken sequence of digits.
    struct Group {
        /// Where it starts and ends in the scalars (`end` excluded).
        var start: Int
        var end: Int
        /// The digits' values.
        var digits: [Int]
        /// The separator scalars between the previous group and this one (0 for the first).
        var separatorsBefore: Int
    }

    var groups: [Group]
    /// True when the first group touches a word or a joined number before it: it cannot start a match.
    var isGluedBefore: Bool
    /// True when the last group touches a word or a joined number after it: it cannot end a match.
    var isGluedAfter: Bool
    /// True when a `+` comes right before it: a phone number in international form, left alone.
    var isPhoneNumber: Bool

    /// At most this many separator scalars between two groups (`4111 - 1111` has three).
    static let maxSeparators = 3

    /// Every run of the text, in order.
    static func runs(in scalars: [Unicode.Scalar]) -> [DigitRun] {
        var runs: [DigitRun] = []
        var index = 0
        let count = scalars.count
        while index < count {
            guard MaskedScalars.digitValue(scalars[index]) != nil else {
                index += 1
                continue
            }
            let start = index
            var groups: [Group] = []
            var separators = 0
            var position = index
            while true {
                let groupStart = position
                var digits: [Int] = []
                while position < count, let digit = MaskedScalars.digitValue(scalars[position]) {
                    digits.append(digit)
                    position += 1
                }
                groups.append(Group(start: groupStart, end: position, digits: digits, separatorsBefore: separators))
                var next = position
                separators = 0
                while next < count, separators < maxSeparators, MaskedScalars.isSeparator(scalars[next]) {
                    next += 1
                    separators += 1
                }
                guard separators > 0, next < count, MaskedScalars.digitValue(scalars[next]) != nil else { break }
                position = next
            }
            runs.append(DigitRun(
                groups: groups,
                isGluedBefore: MaskedScalars.glues(scalars, at: start - 1, step: -1),
                isGluedAfter: MaskedScalars.glues(scalars, at: position, step: 1),
                isPhoneNumber: start > 0 && scalars[start - 1] == "+"))
            index = position
        }
        return runs
    }

    /// Replaces every digit of `groups` with the mask but the last `keeping` digits; separators
    /// stay as written.
    static func mask(_ scalars: inout [Unicode.Scalar], groups: ArraySlice<Group>, keeping: Int) {
        let total = groups.reduce(0) { $0 + $1.digits.count }
        var seen = 0
        for group in groups {
            for position in group.start..<group.end {
                if seen < total - keeping { scalars[position] = MaskedScalars.mask }
                seen += 1
            }
        }
    }
}
