import Foundation
import ParleyCore

/// What masking costs a message on the send path: `Masker.mask` over typical texts, with the
/// built-in detectors alone and with custom rules, median of several runs of many calls each.
/// The server and ParleyKit run this same call once per text before storing or sending it.
///
///     swift run -c release --package-path Benchmarks mask-bench [calls-per-run] [runs]
@main
struct MaskBench {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        let calls = arguments.first.flatMap(Int.init) ?? 20_000
        let runs = arguments.dropFirst().first.flatMap(Int.init) ?? 7
        let custom = MaskingRules(customRules: [
            CustomMaskingRule(name: "Orders", pattern: #"ORD-\d{6}"#, replacement: "ORD-••••••"),
            CustomMaskingRule(name: "Accounts", pattern: #"\bACCT[- ]?\d{4,12}\b"#, replacement: "ACCT-•"),
            CustomMaskingRule(name: "Secrets", pattern: #"(?i)password:\s*\S+"#, replacement: "password: •"),
        ])
        let maskers: [(String, Masker)] = [
            ("built-in", Masker.builtIn),
            ("built-in + 3 custom", try Masker(rules: custom)),
        ]
        let long = String(repeating: "Hello, my parcel from order 4471 has not arrived and the tracking page says 12/11. ", count: 120)
        let texts: [(String, String)] = [
            ("short, no digits (40 B)", "Hi! Where is my parcel? It is very late."),
            ("short, a few digits (60 B)", "Order 4471 was due on 12/11, call me at 555 0199 please"),
            ("a card number (45 B)", "My card is 4111 1111 1111 1111, can you help"),
            ("card + SSN + IBAN (110 B)", "card 4111-1111-1111-1111, SSN 123-45-6789, IBAN DE89 3704 0044 0532 0130 00 thanks a lot for your help"),
            ("Arabic-Indic card (70 B)", "رقم البطاقة ٤١١١ ١١١١ ١١١١ ١١١١"),
            ("long, digits throughout (\(long.utf8.count / 1000) KB)", long),
            ("longest message of digits (10,000 B)", String(repeating: "1234567 ", count: 1_250)),
        ]
        print("mask-bench: \(calls) calls a run, median of \(runs) runs; µs per call")
        var header = "text".padding(toLength: 40, withPad: " ", startingAt: 0)
        for (name, _) in maskers { header += name.padding(toLength: 22, withPad: " ", startingAt: 0) }
        print(header)
        for (name, text) in texts {
            var line = name.padding(toLength: 40, withPad: " ", startingAt: 0)
            for (_, masker) in maskers {
                let count = text.utf8.count > 5_000 ? max(calls / 20, 100) : calls
                var samples: [Double] = []
                var sink = 0
                for _ in 0..<runs {
                    let start = ContinuousClock.now
                    for _ in 0..<count { sink &+= try masker.mask(text).utf8.count }
                    let elapsed = ContinuousClock.now - start
                    samples.append(Double(elapsed.components.attoseconds) / 1e12 / Double(count) + Double(elapsed.components.seconds) * 1e6 / Double(count))
                }
                // Keeps the results alive so the calls are not optimised away.
                if sink == 42 { print("") }
                let median = samples.sorted()[samples.count / 2]
                line += String(format: "%-22.2f", median)
            }
            print(line)
        }
    }
}
