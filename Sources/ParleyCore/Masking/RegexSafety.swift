import Foundation

/// Why a custom rule's pattern is refused: what every text sent to the app would pay for it.
///
/// A backtracking engine (ICU's, like most) can take exponential time when a repeated group can
/// match the same text in several ways (`(a+)+b` on `aaaa…c`), and polynomial time when
/// repetitions follow one another over the same characters (`\d+\d+x` on a long run of digits).
/// Either would let one visitor's message stall the server. So a pattern is read first, for the
/// shapes known to explode, then run against long texts made to slow it down (decision 0014).
enum RegexSafety {
    /// The longest text a probe is: a message's longest.
    static let probeLength = Limits.maxMessageLength
    /// The CPU time all of one rule's probes may take together, so that checking 20 rules stays a
    /// matter of seconds even when each probe alone is within its limit.
    static let probesTime = Duration.milliseconds(300)

    /// What makes the pattern unsafe to run on every message by its shape, or nil.
    static func problem(in pattern: String) -> String? {
        var reader = PatternReader(Array(pattern.unicodeScalars))
        return reader.problem()
    }

    /// What makes the compiled rule unsafe or useless when run, or nil: it matches empty text, it
    /// matches its own replacement, or a probe exhausts its limit.
    static func problem(running rule: CompiledMaskingRule) -> String? {
        if rule.expression.firstMatch(in: "", range: NSRange(location: 0, length: 0)) != nil {
            return "matches empty text; every rule must match at least one character"
        }
        if !rule.matches(in: rule.rule.replacement, limit: .probe).ranges.isEmpty {
            return "matches its own replacement, so masking a masked text would change it again"
        }
        // Masking a masked text must change nothing: the replacement next to what the pattern is
        // made of must not form a new match ("ab" → "a" turns "abb" into "ab", then "a").
        for text in idempotenceProbes(for: rule) {
            guard let once = rule.apply(to: text), let twice = rule.apply(to: once) else { continue }
            if twice != once {
                return "masking its own result changes it again (\"\(text)\" → \"\(once)\" → \"\(twice)\"); choose a replacement the pattern cannot match with what follows or precedes it"
            }
        }
        let advice = "start it with fixed text or \\b, bound its repetitions ({1,20}), and do not repeat a group that holds a repetition or an alternation"
        let start = ThreadCPUTime.now()
        for (name, text) in probes(for: rule.rule.pattern) {
            if rule.matches(in: text, limit: .probe).isExhausted {
                return "takes too long on a long message (\(name)); " + advice
            }
            if let start, let now = ThreadCPUTime.now(), now - start > probesTime {
                return "takes too long on long messages; " + advice
            }
        }
        return nil
    }

    /// Short texts that put the replacement next to the pattern's own letters and digits.
    static func idempotenceProbes(for rule: CompiledMaskingRule) -> [String] {
        let replacement = rule.rule.replacement
        let own = rule.rule.pattern.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        var texts = [replacement + replacement, replacement + " " + replacement]
        var seen = Set<Unicode.Scalar>()
        for scalar in own.prefix(64) where seen.insert(scalar).inserted {
            let run = String(repeating: String(scalar), count: 3)
            texts += [replacement + run, run + replacement, run + replacement + run]
        }
        return texts
    }

    /// Texts of the longest message length made of one unit repeated, ending in a character few
    /// patterns expect: digits, letters, spaces, separators, their mixes, and the pattern's own
    /// letters and digits (what it is likely to match at length).
    static func probes(for pattern: String) -> [(String, String)] {
        var units = ["1", "a", "A", " ", "-", ".", "1 ", "1-", "a ", "a1", "aA1 -._@", "\u{0661}"]
        let own = pattern.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        var seen = Set(units)
        for scalar in own where seen.insert(String(scalar)).inserted { units.append(String(scalar)) }
        let word = String(String.UnicodeScalarView(own.prefix(32)))
        if !word.isEmpty, seen.insert(word).inserted { units.append(word) }
        return units.map { unit in
            let repeated = String(repeating: unit, count: max(1, (probeLength - 1) / unit.count))
            return ("\(repeated.count) characters of \"\(unit)\" repeated", repeated + "\u{1}")
        }
    }
}

/// Reads an ICU pattern just enough to find back-references and repeated groups that hold a
/// variable repetition or an alternation. Character classes, escapes, quoted text and comments are
/// skipped as units.
private struct PatternReader {
    /// What a group holds, as far as the danger goes.
    struct Frame {
        var hasVariableRepetition = false
        var hasAlternation = false
        var isAtomic = false
    }

    let scalars: [Unicode.Scalar]
    var index = 0
    var frames = [Frame()]
    /// The group that just closed, when the next token may be its quantifier.
    var closedGroup: Frame?

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    /// The repetition groups of more than this many may not hold variable parts: `(a?){30}` is
    /// exponential too, `(\d{4}[ -]?){3}` is fine.
    static let maxSafeGroupRepeat = 10

    mutating func problem() -> String? {
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "\\":
                if let problem = skipEscape() { return problem }
            case "[":
                skipClass()
            case "(":
                if peek("?#") { skip(until: ")"); continue }
                var frame = Frame()
                if peek("?>") { frame.isAtomic = true }
                frames.append(frame)
                closedGroup = nil
                continue
            case ")":
                guard frames.count > 1, let child = frames.popLast() else { continue }
                // What the group holds, its parent holds too.
                frames[frames.count - 1].hasVariableRepetition = frames[frames.count - 1].hasVariableRepetition || child.hasVariableRepetition
                frames[frames.count - 1].hasAlternation = frames[frames.count - 1].hasAlternation || child.hasAlternation
                closedGroup = child
                continue
            case "|":
                frames[frames.count - 1].hasAlternation = true
            case "*", "+", "?", "{":
                if let problem = quantifier(scalar) { return problem }
            default:
                break
            }
            // Only the token right after a group can be its quantifier.
            closedGroup = nil
        }
        return nil
    }

    /// Reads the quantifier starting with `first` (already consumed) and judges it against the
    /// group it repeats, if that was a group.
    mutating func quantifier(_ first: Unicode.Scalar) -> String? {
        var minimum = 0
        var maximum: Int? = nil
        switch first {
        case "*": break
        case "+": minimum = 1
        case "?": maximum = 1
        default:
            // `{n}`, `{n,}`, `{n,m}`; anything else is a literal brace.
            guard let (low, high) = readBraces() else { return nil }
            minimum = low
            maximum = high
        }
        var isPossessive = false
        if index < scalars.count, scalars[index] == "+" {
            isPossessive = true
            index += 1
        } else if index < scalars.count, scalars[index] == "?" {
            index += 1
        }
        if minimum != maximum {
            frames[frames.count - 1].hasVariableRepetition = true
        }
        let repeatsMany = maximum.map { $0 > Self.maxSafeGroupRepeat } ?? true
        if let group = closedGroup, !group.isAtomic, !isPossessive, repeatsMany, group.hasVariableRepetition || group.hasAlternation {
            return "a repeated group holds a repetition or an alternation (like (a+)+ or (a|ab)*), which can take exponential time; "
                + "use a character class ([ab]+) or bound the group ({1,\(Self.maxSafeGroupRepeat)})"
        }
        return nil
    }

    /// `{n}`, `{n,}` or `{n,m}` after the `{`; nil (and nothing consumed) when it is not one.
    mutating func readBraces() -> (Int, Int?)? {
        var position = index
        func number() -> Int? {
            var value: Int?
            while position < scalars.count, ("0"..."9").contains(scalars[position]) {
                value = min((value ?? 0) * 10 + Int(scalars[position].value - 0x30), 100_000)
                position += 1
            }
            return value
        }
        guard let low = number() else { return nil }
        var high: Int? = low
        if position < scalars.count, scalars[position] == "," {
            position += 1
            high = number()
        }
        guard position < scalars.count, scalars[position] == "}" else { return nil }
        index = position + 1
        return (low, high)
    }

    /// After a `\`: refuses back-references, skips `\Q…\E` and braced arguments (`\p{L}`, `\x{20AC}`).
    mutating func skipEscape() -> String? {
        guard index < scalars.count else { return nil }
        let escaped = scalars[index]
        index += 1
        switch escaped {
        case "1"..."9", "k":
            return "back-references (\\1, \\k<name>) are not allowed: they can take exponential time"
        case "Q":
            while index + 1 < scalars.count, !(scalars[index] == "\\" && scalars[index + 1] == "E") { index += 1 }
            index = min(index + 2, scalars.count)
        case "p", "P", "x", "N":
            if index < scalars.count, scalars[index] == "{" { skip(until: "}") }
        default:
            break
        }
        return nil
    }

    /// Skips a character class, nested classes and escapes included, after its `[`.
    mutating func skipClass() {
        var depth = 1
        if index < scalars.count, scalars[index] == "^" { index += 1 }
        if index < scalars.count, scalars[index] == "]" { index += 1 }
        while index < scalars.count, depth > 0 {
            switch scalars[index] {
            case "\\": index += 1
            case "[": depth += 1
            case "]": depth -= 1
            default: break
            }
            index += 1
        }
    }

    func peek(_ text: String) -> Bool {
        let wanted = Array(text.unicodeScalars)
        guard index + wanted.count <= scalars.count else { return false }
        return Array(scalars[index..<(index + wanted.count)]) == wanted
    }

    mutating func skip(until end: Unicode.Scalar) {
        while index < scalars.count, scalars[index] != end { index += 1 }
        index = min(index + 1, scalars.count)
    }
}
