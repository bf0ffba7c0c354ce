import Foundation

/// A custom rule made ready to run: its pattern compiled once, and a bound on the work one text may
/// cost it.
///
/// ICU, which runs `NSRegularExpression`, reports progress when asked to (`.reportProgress`): once
/// for each position a match is tried from, and once every 10,000 steps of matching. The two kinds
/// look the same to the caller, so a ``Limit`` counts reports beyond one per position (a bound in
/// steps, the same on a slow phone and a busy server) and, because a match stuck at its first
/// positions reports steps before positions, also bounds the thread's CPU time as a backstop (CPU
/// time, not wall time, so other work on a busy machine does not make a good rule fail).
struct CompiledMaskingRule: Sendable {
    /// How much work one text may cost a rule.
    struct Limit: Sendable {
        /// Progress reports allowed beyond one per position (each about 10,000 steps).
        var extraReports: Int
        /// The CPU time allowed, whatever the reports say.
        var time: Duration

        /// What a rule may cost one text on the send path: about 4 million steps, or half a second
        /// of CPU. A rule that needs more fails that text (decision 0014).
        static let runtime = Limit(extraReports: 400, time: .milliseconds(500))
        /// What a rule may cost one probe when it is checked: a quarter of the steps and of the
        /// time, so a rule that passes has room to spare.
        static let probe = Limit(extraReports: 100, time: .milliseconds(125))
    }

    let rule: CustomMaskingRule
    /// Immutable once made, and safe to use from several threads at once.
    let expression: NSRegularExpression

    /// Compiles the rule's pattern.
    /// - Throws: the ICU error for a pattern that does not compile.
    init(_ rule: CustomMaskingRule) throws {
        self.rule = rule
        expression = try NSRegularExpression(pattern: rule.pattern)
    }

    /// What the rule's matches in `text` are, and whether the limit ran out first.
    func matches(in text: String, limit: Limit = .runtime) -> (ranges: [NSRange], isExhausted: Bool) {
        var ranges: [NSRange] = []
        var isExhausted = false
        let whole = NSRange(location: 0, length: (text as NSString).length)
        // Each position a match is tried from reports once; the limit is what comes on top.
        var reports = -(whole.length + 1)
        let start = ThreadCPUTime.now()
        expression.enumerateMatches(in: text, options: [.reportProgress], range: whole) { match, _, stop in
            if let match {
                // A match of nothing (a lookahead alone) replaces nothing.
                if match.range.length > 0 { ranges.append(match.range) }
                return
            }
            reports += 1
            if reports > limit.extraReports || (reports & 63 == 0 && Self.elapsed(since: start) > limit.time) {
                isExhausted = true
                stop.pointee = true
            }
        }
        return (ranges, isExhausted)
    }

    private static func elapsed(since start: Duration?) -> Duration {
        guard let start, let now = ThreadCPUTime.now() else { return .zero }
        return now - start
    }

    /// The text with every match replaced, or nil when the limit ran out.
    func apply(to text: String, limit: Limit = .runtime) -> String? {
        let (ranges, isExhausted) = matches(in: text, limit: limit)
        guard !isExhausted else { return nil }
        guard !ranges.isEmpty else { return text }
        let source = text as NSString
        var result = ""
        var location = 0
        for range in ranges {
            result += source.substring(with: NSRange(location: location, length: range.location - location))
            result += rule.replacement
            location = range.location + range.length
        }
        result += source.substring(from: location)
        return result
    }
}
