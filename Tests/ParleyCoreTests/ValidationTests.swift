import Foundation
import ParleyCore
import Testing

/// What a validation should say about an input.
enum Verdict: Hashable, Sendable, CustomStringConvertible {
    case valid
    /// Malformed: HTTP 400.
    case invalid
    /// Over a size limit: HTTP 413.
    case tooLarge

    var description: String {
        switch self {
        case .valid: "valid"
        case .invalid: "invalid"
        case .tooLarge: "too large"
        }
    }

    /// Runs a check and turns its outcome into a verdict, checking the field it names.
    static func of(field: String, _ check: () throws(Validation.Failure) -> Void) -> Verdict {
        do {
            try check()
            return .valid
        } catch {
            #expect(error.field == field)
            #expect(!error.message.isEmpty)
            #expect(error.description == "\(field): \(error.message)")
            return error.isTooLarge ? .tooLarge : .invalid
        }
    }
}

/// An input with a readable name for test output (inputs can be 10,000 characters long).
struct Case<Input: Sendable>: Sendable, CustomTestStringConvertible {
    var name: String
    var input: Input
    var verdict: Verdict
    init(_ name: String, _ input: Input, _ verdict: Verdict) {
        self.name = name
        self.input = input
        self.verdict = verdict
    }
    var testDescription: String { "\(name) → \(verdict)" }
}

@Suite("Validation")
struct ValidationTests {
    static let family = "👨‍👩‍👧‍👦"  // one character, 25 UTF-8 bytes

    static let messageTexts: [Case<String>] = [
        .init("empty", "", .invalid),
        .init("one space", " ", .invalid),
        .init("blank: spaces, tabs and newlines", " \t\n \r\n ", .invalid),
        .init("non-breaking space only", "\u{00A0}", .invalid),
        .init("one letter", "a", .valid),
        .init("text with surrounding blanks", "  Hello  \n", .valid),
        .init("one emoji", family, .valid),
        .init("at the limit: 10,000 letters", String(repeating: "a", count: 10_000), .valid),
        .init("at the byte limit: 1,600 family emoji (40,000 bytes)", String(repeating: family, count: 1_600), .valid),
        .init("over the byte limit: 1,601 family emoji (40,025 bytes)", String(repeating: family, count: 1_601), .tooLarge),
        .init("10,000 four-byte characters (40,000 bytes)", String(repeating: "😀", count: 10_000), .valid),
        .init("at the limit: 10,000 e + combining acute", String(repeating: "e\u{301}", count: 10_000), .valid),
        .init("over the limit: 10,001 letters", String(repeating: "a", count: 10_001), .tooLarge),
        .init("over the limit: 10,001 emoji", String(repeating: family, count: 10_001), .tooLarge),
        .init("over the limit: 20,000 newlines and a letter", String(repeating: "\n", count: 20_000) + "a", .tooLarge),
    ]

    @Test("message text: not blank, at most 10,000 characters and 40,000 bytes (over is too large)", arguments: messageTexts)
    func messageText(_ test: Case<String>) {
        #expect(Verdict.of(field: "text") { () throws(Validation.Failure) in try Validation.messageText(test.input) } == test.verdict)
    }

    static let clientMessageIDs: [Case<String>] = [
        .init("a UUID", "7c9e6679-7425-40de-944b-e07fc1f90ae7", .valid),
        .init("one character", "x", .valid),
        .init("printable ASCII edges", "!~", .valid),
        .init("100 characters", String(repeating: "m", count: 100), .valid),
        .init("empty", "", .invalid),
        .init("101 characters", String(repeating: "m", count: 101), .invalid),
        .init("a space", "msg 1", .invalid),
        .init("a tab", "msg\t1", .invalid),
        .init("a newline", "msg1\n", .invalid),
        .init("a control character", "msg\u{7F}", .invalid),
        .init("non-ASCII", "message-é", .invalid),
    ]

    @Test("client message id: 1 to 100 printable ASCII characters", arguments: clientMessageIDs)
    func clientMessageID(_ test: Case<String>) {
        #expect(Verdict.of(field: "client_message_id") { () throws(Validation.Failure) in try Validation.clientMessageID(test.input) } == test.verdict)
    }

    static let emails: [Case<String>] = [
        .init("plain", "ada@example.com", .valid),
        .init("subdomain and plus", "ada+support@mail.example.co.uk", .valid),
        .init("shortest", "a@b.c", .valid),
        .init("254 characters", String(repeating: "a", count: 242) + "@example.com", .valid),
        .init("255 characters", String(repeating: "a", count: 243) + "@example.com", .invalid),
        .init("empty", "", .invalid),
        .init("no @", "ada.example.com", .invalid),
        .init("two @", "ada@home@example.com", .invalid),
        .init("nothing before @", "@example.com", .invalid),
        .init("no dot in the domain", "ada@localhost", .invalid),
        .init("domain starts with a dot", "ada@.example.com", .invalid),
        .init("domain ends with a dot", "ada@example.com.", .invalid),
        .init("a space", "ada lovelace@example.com", .invalid),
        .init("a trailing newline", "ada@example.com\n", .invalid),
    ]

    @Test("email: one @, a dotted domain, no spaces, at most 254 characters", arguments: emails)
    func email(_ test: Case<String>) {
        #expect(Verdict.of(field: "email") { () throws(Validation.Failure) in try Validation.email(test.input) } == test.verdict)
    }

    static let deviceIDs: [Case<String>] = [
        .init("a UUID", "5f0c1e4a-8d2b-4c39-9b7e-2a6f3d1c8e90", .valid),
        .init("8 characters", "abcdefgh", .valid),
        .init("128 characters", String(repeating: "d", count: 128), .valid),
        .init("7 characters", "abcdefg", .invalid),
        .init("empty", "", .invalid),
        .init("129 characters", String(repeating: "d", count: 129), .invalid),
        .init("a space", "device 12345", .invalid),
        .init("non-ASCII", "appareil-é-1", .invalid),
    ]

    @Test("device id: 8 to 128 printable ASCII characters", arguments: deviceIDs)
    func deviceID(_ test: Case<String>) {
        #expect(Verdict.of(field: "device_id") { () throws(Validation.Failure) in try Validation.deviceID(test.input) } == test.verdict)
    }

    static func attributes(count: Int) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { ("key\($0)", "value") })
    }

    static let attributeSets: [Case<[String: String]>] = [
        .init("none", [:], .valid),
        .init("one", ["plan": "pro"], .valid),
        .init("50 pairs", attributes(count: 50), .valid),
        .init("51 pairs", attributes(count: 51), .invalid),
        .init("a 64-character key", [String(repeating: "k", count: 64): "v"], .valid),
        .init("a 65-character key", [String(repeating: "k", count: 65): "v"], .invalid),
        .init("an empty key", ["": "v"], .invalid),
        .init("an empty value", ["k": ""], .valid),
        .init("a 1,000-character value", ["k": String(repeating: "v", count: 1_000)], .valid),
        .init("a 1,001-character value", ["k": String(repeating: "v", count: 1_001)], .invalid),
    ]

    @Test("attributes: at most 50 pairs, keys 1 to 64, values at most 1,000 characters (all 400s)", arguments: attributeSets)
    func attributes(_ test: Case<[String: String]>) {
        #expect(Verdict.of(field: "attributes") { () throws(Validation.Failure) in try Validation.attributes(test.input) } == test.verdict)
    }

    @Test("attributes name the field they were given")
    func attributesField() {
        #expect(Verdict.of(field: "profile") { () throws(Validation.Failure) in
            try Validation.attributes(["": "v"], field: "profile")
        } == .invalid)
    }

    static let subjects: [Case<String>] = [
        .init("a subject", "Order #42 missing", .valid),
        .init("empty (optional)", "", .valid),
        .init("200 characters", String(repeating: "s", count: 200), .valid),
        .init("201 characters", String(repeating: "s", count: 201), .invalid),
        .init("two lines", "Order\nmissing", .invalid),
    ]

    @Test("subject: one line of at most 200 characters", arguments: subjects)
    func subject(_ test: Case<String>) {
        #expect(Verdict.of(field: "subject") { () throws(Validation.Failure) in try Validation.shortText(test.input, field: "subject") } == test.verdict)
    }

    @Test("a required short text must not be blank")
    func requiredShortText() {
        #expect(Verdict.of(field: "name") { () throws(Validation.Failure) in try Validation.shortText("  ", field: "name", maxLength: 100, required: true) } == .invalid)
        #expect(Verdict.of(field: "name") { () throws(Validation.Failure) in try Validation.shortText("Support", field: "name", maxLength: 100, required: true) } == .valid)
        #expect(Verdict.of(field: "name") { () throws(Validation.Failure) in try Validation.shortText(String(repeating: "n", count: 101), field: "name", maxLength: 100) } == .invalid)
    }
}

@Suite("Limits")
struct LimitsTests {
    /// docs/protocol.md states these numbers; change both together.
    @Test("the documented limits")
    func documented() {
        #expect(Limits.maxMessageLength == 10_000)
        #expect(Limits.maxFrameBytes == 262_144)
        #expect(Limits.maxMessageBytes == 40_000)
        #expect(Limits.maxRequestBodyBytes == 262_144)
        #expect(Limits.maxSubjectLength == 200)
        #expect(Limits.maxAttributes == 50)
        #expect(Limits.maxAttributeKeyLength == 64)
        #expect(Limits.maxAttributeValueLength == 1_000)
        #expect(Limits.maxLongPollSeconds == 30)
        #expect(Limits.maxEventPage == 500)
    }
}
