import Foundation
@testable import ParleyCore
import Testing

@Suite("Masking rules")
struct MaskingRulesTests {
    @Test func json_absentFieldsTakeTheirDefaults_andRoundTrips() throws {
        let empty = try ParleyJSON.decode(MaskingRules.self, from: Data("{}".utf8))
        #expect(empty == .defaults && empty.masksCardNumbers && empty.masksSocialSecurityNumbers && empty.masksIBANs && empty.customRules.isEmpty)
        let rules = MaskingRules(masksIBANs: false, customRules: [CustomMaskingRule(name: "Orders", pattern: #"ORD-\d{6}"#, replacement: "ORD-•")])
        let json = String(decoding: try ParleyJSON.encode(rules), as: UTF8.self)
        #expect(json == #"{"card_numbers":true,"custom":[{"name":"Orders","pattern":"ORD-\\d{6}","replacement":"ORD-•"}],"ibans":false,"us_social_security_numbers":true}"#)
        #expect(try ParleyJSON.decode(MaskingRules.self, from: Data(json.utf8)) == rules)
    }

    static let accepted: [String] = [
        #"ORD-\d{6}"#, #"\bACCT[- ]?\d{4,12}\b"#, #"(?i)secret:\s*\S+"#, #"(\d{4}[ -]?){3}\d{4}"#, #"[A-Z]{2}\d{6}"#,
        #"(?:INV|ORD)-\d+"#, #"\p{Lu}{3}-\d{3}"#, #"\bpin:? ?\d{4}\b"#, "x{2}y", #"\Q(a+)+\E"#,
        #"[(]\d{3}[)]"#, #"\d{3}\.\d{3}"#,
    ]

    @Test(arguments: accepted)
    func reasonablePatterns_areAccepted(_ pattern: String) throws {
        try MaskingRules(customRules: [CustomMaskingRule(name: "Rule", pattern: pattern, replacement: "[removed]")]).check()
    }

    static let refused: [(pattern: String, because: String)] = [
        ("(", "not a valid regular expression"),
        ("[a-", "not a valid regular expression"),
        (#"\"#, "not a valid regular expression"),
        ("(a+)+b", "exponential"),
        ("(a*)*", "exponential"),
        ("(a|ab)*c", "exponential"),
        (#"(\d+\s?)+$"#, "exponential"),
        ("((ab)*c)+", "exponential"),
        ("(a?){30}a{30}", "exponential"),
        (#"(\w+)\1"#, "back-references"),
        (#"(?<x>a)\k<x>"#, "back-references"),
        (#"\d+\d+\d+x"#, "too long"),
        (#"\d+x"#, "too long"),
        ("a*", "empty text"),
        ("x?", "empty text"),
        ("removed", "own replacement"),
    ]

    @Test(arguments: refused.indices)
    func unsafeOrBadPatterns_areRefused_namingTheField(_ index: Int) throws {
        let (pattern, because) = Self.refused[index]
        let rules = MaskingRules(customRules: [
            CustomMaskingRule(name: "Fine", pattern: "ORD-\\d{6}", replacement: "ORD-•"),
            CustomMaskingRule(name: "Bad", pattern: pattern, replacement: "[removed]"),
        ])
        let start = try #require(ThreadCPUTime.now())
        #expect {
            try rules.check()
        } throws: { error in
            guard let failure = error as? Validation.Failure else { return false }
            return failure.field == "custom[1].pattern" && failure.message.contains(because)
        }
        #expect(try #require(ThreadCPUTime.now()) - start < .seconds(5), "refused quickly (thread CPU time): \(pattern)")
    }

    @Test func shapes_areChecked() {
        func failure(_ rules: MaskingRules) -> Validation.Failure? {
            do { try rules.check(); return nil } catch { return error }
        }
        let rule = CustomMaskingRule(name: "R", pattern: "x{2}", replacement: "•")
        #expect(failure(MaskingRules(customRules: Array(repeating: rule, count: 21)))?.field == "custom")
        #expect(failure(MaskingRules(customRules: [rule, rule]))?.field == "custom[1].name")
        #expect(failure(MaskingRules(customRules: [CustomMaskingRule(name: " ", pattern: "x", replacement: "•")]))?.field == "custom[0].name")
        #expect(failure(MaskingRules(customRules: [CustomMaskingRule(name: String(repeating: "n", count: 65), pattern: "x", replacement: "•")]))?
            .field == "custom[0].name")
        #expect(failure(MaskingRules(customRules: [CustomMaskingRule(name: "R", pattern: "", replacement: "•")]))?.field == "custom[0].pattern")
        #expect(failure(MaskingRules(customRules: [CustomMaskingRule(name: "R", pattern: String(repeating: "x", count: 513), replacement: "•")]))?
            .field == "custom[0].pattern")
        #expect(failure(MaskingRules(customRules: [CustomMaskingRule(name: "R", pattern: "x", replacement: "a\nb")]))?.field == "custom[0].replacement")
        #expect(failure(MaskingRules(customRules: [CustomMaskingRule(name: "R", pattern: "x", replacement: "")]))?.field == "custom[0].replacement")
        #expect(failure(MaskingRules(customRules: Array((0..<20).map { CustomMaskingRule(name: "R\($0)", pattern: "x{2}", replacement: "•") }))) == nil)
    }

    /// A rule that got past the checks (an older server, a storage edited by hand) still cannot
    /// stall a send: its limit stops it, and the text is refused rather than let through unmasked.
    @Test func aRuleOverItsLimit_failsTheText_quickly() throws {
        let masker = try Masker(rules: MaskingRules(customRules: [CustomMaskingRule(name: "Slow", pattern: "(a+)+b", replacement: "•")]))
        let start = try #require(ThreadCPUTime.now())
        #expect {
            try masker.mask(String(repeating: "a", count: 40) + "c", field: "subject")
        } throws: { error in
            (error as? Validation.Failure)?.field == "subject" && (error as? Validation.Failure)?.message.contains("Slow") == true
        }
        #expect(try #require(ThreadCPUTime.now()) - start < .seconds(5), "stopped quickly (thread CPU time)")
        #expect(try masker.mask("aab") == "•", "a text it can finish is masked")
    }

    @Test func aPatternThatDoesNotCompile_isRefusedByTheMasker() {
        #expect(throws: Validation.Failure.self) {
            _ = try Masker(rules: MaskingRules(customRules: [CustomMaskingRule(name: "R", pattern: "(", replacement: "•")]))
        }
    }
}
