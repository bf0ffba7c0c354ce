import ParleyCore

/// One row of the shared masking table: a text, the rules in force, and what every side must make
/// of it.
public struct MaskingCase: Sendable, CustomStringConvertible {
    public var name: String
    public var input: String
    /// The text once masked; equal to `input` when nothing may be masked.
    public var expected: String
    public var rules: MaskingRules

    public init(_ name: String, _ input: String, _ expected: String, rules: MaskingRules = .defaults) {
        self.name = name
        self.input = input
        self.expected = expected
        self.rules = rules
    }

    /// True when the row expects the text left as it is.
    public var isUnchanged: Bool { input == expected }

    public var description: String { name }
}

/// Masking, valid and invalid, fuzz-style: ParleyCore's ``Masker``, ParleyKit's outbox and the
/// server's store each run this table through their own paths and must agree row by row (issue 14).
public enum MaskingCases {
    static let orderReferences = MaskingRules(customRules: [
        CustomMaskingRule(name: "Order references", pattern: #"ORD-\d{6}"#, replacement: "ORD-••••••"),
    ])
    static let secrets = MaskingRules(customRules: [
        CustomMaskingRule(name: "Secrets", pattern: #"(?i)secret:\s*\S+"#, replacement: "[secret]"),
    ])
    static let groupsOfFour = MaskingRules(customRules: [
        CustomMaskingRule(name: "Groups of four", pattern: #"\b\d{4}\b"#, replacement: "####"),
    ])
    static let threeDigits = MaskingRules(customRules: [
        CustomMaskingRule(name: "Codes", pattern: #"\b\d{3}\b"#, replacement: "***"),
    ])
    static let builtInsOff = MaskingRules(masksCardNumbers: false, masksSocialSecurityNumbers: false, masksIBANs: false)

    /// The table.
    public static let all: [MaskingCase] = [
        // Payment cards: what is masked
        .init("16 digits unbroken", "4111111111111111", "••••••••••••1111"),
        .init("groups of four with spaces", "4111 1111 1111 1111", "•••• •••• •••• 1111"),
        .init("groups of four with dashes", "4111-1111-1111-1111", "••••-••••-••••-1111"),
        .init("in a sentence, comma after", "my card is 5500 0000 0000 0004, thanks", "my card is •••• •••• •••• 0004, thanks"),
        .init("Amex 4-6-5", "Amex 3782 822463 10005", "Amex •••• •••••• •0005"),
        .init("Diners 4-6-4", "3056 930902 5904", "•••• •••••• 5904"),
        .init("13 digits", "4222222222222", "•••••••••2222"),
        .init("19 digits", "6304000000000000018", "•••••••••••••••0018"),
        .init("19 digits in fours", "4917 6100 0000 0000 003", "•••• •••• •••• •••0 003"),
        .init("full stop at the end of a sentence", "It is 4111111111111111.", "It is ••••••••••••1111."),
        .init("in brackets and quotes", "(4111111111111111) \"5555555555554444\"", "(••••••••••••1111) \"••••••••••••4444\""),
        .init("expiry date after stays", "4111 1111 1111 1111 12/25", "•••• •••• •••• 1111 12/25"),
        .init("security code after stays", "4111 1111 1111 1111 123", "•••• •••• •••• 1111 123"),
        .init("two cards", "4111111111111111 and 5500-0000-0000-0004", "••••••••••••1111 and ••••-••••-••••-0004"),
        .init("two cards in one run", "4111 1111 1111 1111 5500 0000 0000 0004", "•••• •••• •••• 1111 •••• •••• •••• 0004"),
        .init("spaced dashes", "4111 - 1111 - 1111 - 1111", "•••• - •••• - •••• - 1111"),
        .init("no-break spaces", "4111\u{A0}1111\u{A0}1111\u{A0}1111", "••••\u{A0}••••\u{A0}••••\u{A0}1111"),
        .init("en dashes", "4111–1111–1111–1111", "••••–••••–••••–1111"),
        .init("a Luhn-valid order number is masked (one in ten)", "Order 1234567812345670 shipped", "Order ••••••••••••5670 shipped"),
        .init("after a line break", "card:\n4242424242424242", "card:\n••••••••••••4242"),
        // Payment cards: Unicode digits, read by value and masked in place
        .init("Arabic-Indic digits", "٤١١١ ١١١١ ١١١١ ١١١١", "•••• •••• •••• ١١١١"),
        .init("fullwidth digits", "４１１１１１１１１１１１１１１１", "••••••••••••１１１１"),
        .init("Devanagari digits", "४१११-११११-११११-११११", "••••-••••-••••-११११"),
        .init("scripts mixed", "4111 ١١١١ 1111 ١١١١", "•••• •••• •••• ١١١١"),
        // Payment cards: what is not masked
        .init("Luhn fails", "4111 1111 1111 1112", "4111 1111 1111 1112"),
        .init("order number failing Luhn", "Order 8675309867530986 shipped", "Order 8675309867530986 shipped"),
        .init("starts with 0", "0000 0000 0000 0000", "0000 0000 0000 0000"),
        .init("12 digits", "411111111113", "411111111113"),
        .init("20-digit run holding a card is not cut", "00004111111111111111", "00004111111111111111"),
        .init("inside a word", "ABC4111111111111111", "ABC4111111111111111"),
        .init("letters after", "4111111111111111XYZ", "4111111111111111XYZ"),
        .init("underscore before", "ref_4111111111111111", "ref_4111111111111111"),
        .init("decimal places after", "4111111111111111.50", "4111111111111111.50"),
        .init("thousands separators", "1,234,567,890,123,456", "1,234,567,890,123,456"),
        .init("after a plus: a phone number", "+4111111111111111", "+4111111111111111"),
        .init("phone number in groups", "0049 30 1234 5678", "0049 30 1234 5678"),
        .init("grouped unlike a card", "41 1111 1111 1111 11", "41 1111 1111 1111 11"),
        .init("groups four spaces apart", "4111    1111    1111    1111", "4111    1111    1111    1111"),
        .init("groups on separate lines", "4111\n1111\n1111\n1111", "4111\n1111\n1111\n1111"),
        .init("short numbers and times", "Call 555 0199 at 10:30, room 42", "Call 555 0199 at 10:30, room 42"),
        .init("a masked card stays as it is", "•••• •••• •••• 1111", "•••• •••• •••• 1111"),
        // US social security numbers
        .init("SSN with dashes", "123-45-6789", "•••-••-6789"),
        .init("SSN with spaces in a sentence", "SSN 123 45 6789 ok", "SSN ••• •• 6789 ok"),
        .init("SSN in fullwidth digits", "１２３-４５-６７８９", "•••-••-６７８９"),
        .init("SSN area 000", "000-12-3456", "000-12-3456"),
        .init("SSN area 666", "666-12-3456", "666-12-3456"),
        .init("SSN area 900", "900-12-3456", "900-12-3456"),
        .init("SSN group 00", "123-00-6789", "123-00-6789"),
        .init("SSN serial 0000", "123-45-0000", "123-45-0000"),
        .init("nine digits unbroken are not an SSN", "123456789", "123456789"),
        .init("phone number 3-3-4", "555-123-4567", "555-123-4567"),
        .init("SSN shape inside a longer number", "123-45-6789-1", "123-45-6789-1"),
        .init("SSN shape inside a word", "x123-45-6789", "x123-45-6789"),
        // IBANs
        .init("IBAN in groups", "DE89 3704 0044 0532 0130 00", "DE•• •••• •••• •••• ••30 00"),
        .init("IBAN unbroken", "DE89370400440532013000", "DE••••••••••••••••3000"),
        .init("IBAN with letters", "GB29 NWBK 6016 1331 9268 19", "GB•• •••• •••• •••• ••68 19"),
        .init("IBAN of 27", "FR14 2004 1010 0505 0001 3M02 606", "FR•• •••• •••• •••• •••• •••2 606"),
        .init("IBAN of 15", "NO93 8601 1117 947", "NO•• •••• •••7 947"),
        .init("IBAN in lower case", "de89 3704 0044 0532 0130 00", "de•• •••• •••• •••• ••30 00"),
        .init("IBAN in a sentence", "Pay to GB82 WEST 1234 5698 7654 32 today", "Pay to GB•• •••• •••• •••• ••54 32 today"),
        .init("IBAN in fullwidth", "ＤＥ８９３７０４００４４０５３２０１３０００", "ＤＥ••••••••••••••••３０００"),
        .init("IBAN check digits wrong", "DE88 3704 0044 0532 0130 00", "DE88 3704 0044 0532 0130 00"),
        .init("IBAN a character short", "DE89 3704 0044 0532 0130 0", "DE89 3704 0044 0532 0130 0"),
        .init("IBAN of an unknown country", "XX89 3704 0044 0532 0130 00", "XX89 3704 0044 0532 0130 00"),
        .init("IBAN inside a word", "xDE89370400440532013000", "xDE89370400440532013000"),
        .init("IBAN with letters after", "DE89370400440532013000X", "DE89370400440532013000X"),
        // Custom rules
        .init("custom rule", "order ORD-123456 is late", "order ORD-•••••• is late", rules: orderReferences),
        .init("custom rule ignoring case", "My SECRET: hunter2 ok", "My [secret] ok", rules: secrets),
        .init("custom rule after the built-ins", "card 4111 1111 1111 1111", "card •••• •••• •••• ####", rules: groupsOfFour),
        .init("custom rule: \\d matches every script", "code ١٢٣ and 456", "code *** and ***", rules: threeDigits),
        .init("built-ins off", "4111 1111 1111 1111, 123-45-6789, DE89370400440532013000",
              "4111 1111 1111 1111, 123-45-6789, DE89370400440532013000", rules: builtInsOff),
    ]
}
