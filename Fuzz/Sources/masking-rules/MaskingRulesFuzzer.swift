import FuzzSupport
import ParleyCore

/// An admin's custom masking rule made from the input, checked by `MaskingRules.check()` as the
/// settings route checks it, and run when it passes.
///
/// Input: a flags byte, a pattern, a NUL, a replacement, a NUL, then a text. Bit 0 of the flags
/// takes the replacement from the input (otherwise a fixed valid one is used, so that most inputs
/// reach the pattern reader); bit 1 turns the built-in detectors off.
///
/// Checked:
/// - `check()` finishes for any pattern (the pattern reader, ICU's compiler, the probes);
/// - a rule `check()` accepts compiles in `Masker(rules:)`, does not match its own replacement,
///   and masking a text either succeeds or fails with the rule's limit, never otherwise.
@_cdecl("LLVMFuzzerTestOneInput")
public func maskingRulesFuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    let flags = input.byte()
    let pattern = input.string(limit: CustomMaskingRule.maxPatternBytes + 8)
    let replacement = input.string(limit: 4 * CustomMaskingRule.maxReplacementLength)
    let rule = CustomMaskingRule(name: "fuzz", pattern: pattern, replacement: flags & 1 != 0 ? replacement : "[masked]")
    let builtIns = flags & 2 == 0
    let rules = MaskingRules(masksCardNumbers: builtIns, masksSocialSecurityNumbers: builtIns, masksIBANs: builtIns, customRules: [rule])
    MaskingRulesFuzzer.check(rules, text: input.restString())
    return 0
}

enum MaskingRulesFuzzer {
    static func check(_ rules: MaskingRules, text: String) {
        do {
            try rules.check()
        } catch {
            return
        }
        let rule = rules.customRules[0]
        let masker: Masker
        do {
            masker = try Masker(rules: MaskingRules(masksCardNumbers: false, masksSocialSecurityNumbers: false, masksIBANs: false,
                                                    customRules: rules.customRules))
        } catch {
            brokenPromise("the checked pattern \(rule.pattern.debugDescription) does not compile: \(error)")
        }
        let replaced = try? masker.mask(rule.replacement)
        promise(replaced == rule.replacement,
                "\(rule.pattern.debugDescription) passed check() but changes its own replacement \(rule.replacement.debugDescription)")
        do {
            _ = try Masker(rules: rules).mask(text)
        } catch {
            // The one documented failure: the rule ran out of its limit on this text.
            promise(error.message.contains("took too long"), "masking with \(rule.pattern.debugDescription) failed otherwise: \(error)")
        }
    }
}
