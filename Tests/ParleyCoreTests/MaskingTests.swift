import Foundation
@testable import ParleyCore
import ParleyTestSupport
import Testing

@Suite("Data masking")
struct MaskingTests {
    @Test func sharedTable_coversEveryDetector_maskedAndLeftAlone() {
        let rows = MaskingCases.all
        #expect(rows.count >= 60)
        #expect(rows.contains { $0.name.contains("Luhn") && $0.isUnchanged } && rows.contains { $0.expected.contains("•") && $0.rules == .defaults })
        #expect(rows.contains { $0.name.contains("SSN") && !$0.isUnchanged } && rows.contains { $0.name.contains("SSN") && $0.isUnchanged })
        #expect(rows.contains { $0.name.contains("IBAN") && !$0.isUnchanged } && rows.contains { $0.name.contains("IBAN") && $0.isUnchanged })
        #expect(rows.contains { !$0.rules.customRules.isEmpty })
        #expect(rows.contains { $0.input.unicodeScalars.contains { !$0.isASCII && MaskedScalars.digitValue($0) != nil } }, "Unicode digits")
    }

    @Test(arguments: MaskingCases.all)
    func masker_matchesTheSharedTable(_ row: MaskingCase) throws {
        let masker = try Masker(rules: row.rules)
        #expect(try masker.mask(row.input) == row.expected)
    }

    @Test(arguments: MaskingCases.all)
    func maskingTwice_changesNothingMore(_ row: MaskingCase) throws {
        let masker = try Masker(rules: row.rules)
        #expect(try masker.mask(row.expected) == row.expected)
    }

    @Test func theBuiltInMasker_isTheDefaultRules() throws {
        #expect(Masker.builtIn.rules == .defaults)
        #expect(try Masker.builtIn.mask("4111 1111 1111 1111") == "•••• •••• •••• 1111")
    }

    @Test func answersAndAttributes_maskTheirTextOnly() throws {
        let masker = Masker.builtIn
        let answers: [String: FormValue] = ["card": .text("4111111111111111"), "agree": .bool(true), "score": .integer(5)]
        #expect(try masker.mask(answers) == ["card": .text("••••••••••••1111"), "agree": .bool(true), "score": .integer(5)])
        #expect(try masker.mask(["iban": "DE89370400440532013000", "plan": "gold"]) == ["iban": "DE••••••••••••••••3000", "plan": "gold"])
    }

    /// The longest message made of what the detectors look at hardest (thousands of short digit
    /// groups in one run, letter-digit words, separators) is masked in linear time: a visitor cannot
    /// stall a send with it. Measured in the thread's CPU time, which a busy machine does not
    /// stretch (wall time under a parallel build did: 1.7 s for 0.2 s of work).
    @Test(arguments: ["1 ", "1234567 ", "4111 ", "DE89 ", "1-", "١ ", "4111-1111-1111-1111 "])
    func theLongestMessageOfOneShape_isMaskedQuickly(_ unit: String) throws {
        let text = String(repeating: unit, count: Limits.maxMessageLength / unit.count)
        let start = try #require(ThreadCPUTime.now())
        _ = try Masker.builtIn.mask(text)
        let spent = try #require(ThreadCPUTime.now()) - start
        #expect(spent < .seconds(1), "\(unit.debugDescription) × \(text.count / unit.count): \(spent)")
    }

    // MARK: Checks

    @Test func luhnAndModulo97() {
        #expect(CardNumbers.isLuhnValid([4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]))
        #expect(!CardNumbers.isLuhnValid([4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2]))
        let iban = "GB82WEST12345698765432".unicodeScalars.map { MaskedScalars.letterValue($0) ?? MaskedScalars.digitValue($0)! }
        #expect(IBANs.isValid(iban))
        #expect(!IBANs.isValid(Array(iban.dropLast()) + [3]))
    }

    // MARK: Fuzz

    /// Random texts from an alphabet of digits (several scripts), separators, letters, joiners and
    /// marks: masking never traps, is idempotent, changes only digits and letters and only into
    /// `•`, and keeps the text's length in scalars and characters.
    @Test func randomTexts_maskSafely() throws {
        var random = SplitMix64(state: 14)
        let alphabet: [Unicode.Scalar] = ["0", "1", "4", "5", "9", "٤", "١", "４", "१", " ", " ", "-", "–", "\u{A0}", "+", ".", ",", "/", ":",
                                          "a", "D", "E", "x", "_", "\n", "•", "\u{301}", "é", "😀"]
        let masker = Masker.builtIn
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...48, using: &random)
            var view = String.UnicodeScalarView()
            for _ in 0..<length { view.append(alphabet.randomElement(using: &random)!) }
            let text = String(view)
            let masked = try masker.mask(text)
            #expect(try masker.mask(masked) == masked, "idempotent: \(text.debugDescription)")
            #expect(masked.unicodeScalars.count == text.unicodeScalars.count && masked.count == text.count)
            for (before, after) in zip(text.unicodeScalars, masked.unicodeScalars) where before != after {
                #expect(after == MaskedScalars.mask && (MaskedScalars.digitValue(before) != nil || MaskedScalars.letterValue(before) != nil))
            }
        }
    }

    /// Valid card numbers of every length, in random surroundings that do not glue them to
    /// anything: always masked, the last four kept.
    @Test func randomCards_inRandomSurroundings_areAlwaysMasked() throws {
        var random = SplitMix64(state: 1_400)
        let around = ["", " ", "card ", "(", "\"", "\n", ": ", "Nr. "]
        let after = ["", " ", ".", ",", ")", "!", "\n", " thanks"]
        for _ in 0..<2_000 {
            let length = Int.random(in: 13...19, using: &random)
            var digits = [Int.random(in: 1...9, using: &random)] + (0..<(length - 2)).map { _ in Int.random(in: 0...9, using: &random) }
            digits.append((0...9).first { CardNumbers.isLuhnValid(digits + [$0]) }!)
            let number = digits.map(String.init).joined()
            let grouped = length == 16 && Bool.random(using: &random)
                ? stride(from: 0, to: 16, by: 4).map { number.dropFirst($0).prefix(4) }.joined(separator: ["-", " "].randomElement(using: &random)!)
                : number
            let text = around.randomElement(using: &random)! + grouped + after.randomElement(using: &random)!
            let masked = try Masker.builtIn.mask(text)
            #expect(!masked.contains(number) && !masked.filter(\.isNumber).contains(number), "\(text.debugDescription) → \(masked.debugDescription)")
            #expect(masked.filter(\.isNumber).hasSuffix(String(number.suffix(4))), "the last four stay: \(masked.debugDescription)")
        }
    }

    /// Digit runs that fail Luhn, or are glued into words and longer numbers, never change.
    @Test func randomNonCards_areLeftAlone() throws {
        var random = SplitMix64(state: 41)
        for _ in 0..<2_000 {
            let length = Int.random(in: 10...24, using: &random)
            var digits = [Int.random(in: 1...9, using: &random)] + (0..<(length - 1)).map { _ in Int.random(in: 0...9, using: &random) }
            if (13...19).contains(length), CardNumbers.isLuhnValid(digits) { digits[digits.count - 1] = (digits[digits.count - 1] + 1) % 10 }
            let number = digits.map(String.init).joined()
            let text = ["order ", "ABC", "+", "x"].randomElement(using: &random)! + number + ["", "Z", ".5", ",00"].randomElement(using: &random)!
            #expect(try Masker.builtIn.mask(text) == text, "\(text)")
        }
    }
}
