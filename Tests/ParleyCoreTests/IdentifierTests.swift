import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

@Suite("Identifiers")
struct IdentifierTests {
    static let crockford = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// Decodes the 10 time characters of an id back to Unix milliseconds.
    static func millis(of id: String) -> UInt64 {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        let time = id.split(separator: "_")[1].prefix(10)
        return time.reduce(0) { $0 * 32 + UInt64(alphabet.firstIndex(of: $1)!) }
    }

    @Test("the sample ids validate, and their time part is their creation time", arguments: [
        (Sample.appID.rawValue, Sample.setupTime), (Sample.queueID.rawValue, Sample.setupTime),
        (Sample.visitorID.rawValue, Sample.visitorTime), (Sample.conversationID.rawValue, Sample.openTime),
    ])
    func sampleIDs(_ text: String, _ created: Date) throws {
        #expect(Self.millis(of: text) == UInt64(Timestamp.millis(created)))
        switch String(text.prefix(3)) {
        case "app": #expect(AppID(validating: text) != nil)
        case "que": #expect(QueueID(validating: text) != nil)
        case "vis": #expect(VisitorID(validating: text) != nil)
        case "cnv": #expect(ConversationID(validating: text) != nil)
        default: Issue.record("unexpected prefix")
        }
        #expect(AgentID(validating: Sample.agentID.rawValue) != nil)
    }

    @Test("prefixes of every kind")
    func prefixes() {
        #expect([AppKind.prefix, QueueKind.prefix, AgentKind.prefix, VisitorKind.prefix, ConversationKind.prefix]
            == ["app", "que", "agt", "vis", "cnv"])
    }

    @Test("a well-formed conversation id validates", arguments: [
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q",
        "cnv_00000000000000000000000000",
        "cnv_7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        "cnv_0123456789ABCDEFGHJKMNPQRS",
        "cnv_TVWXYZ0123456789ABCDEFGHJK",
    ])
    func validID(_ text: String) throws {
        let id = try #require(ConversationID(validating: text))
        #expect(id.rawValue == text)
        #expect(id.description == text)
    }

    @Test("a malformed conversation id is refused", arguments: [
        "",  // empty
        "cnv_",  // prefix only
        "que_01M7ZT0GEN5R8K2W6Y9C3F7H1Q",  // another kind's prefix
        "CNV_01M7ZT0GEN5R8K2W6Y9C3F7H1Q",  // prefix in capitals
        "cnv-01M7ZT0GEN5R8K2W6Y9C3F7H1Q",  // dash for underscore
        "cnv01M7ZT0GEN5R8K2W6Y9C3F7H1Q",  // no separator
        "01M7ZT0GEN5R8K2W6Y9C3F7H1Q",  // no prefix
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1",  // 25 characters
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1QQ",  // 27 characters
        "cnv_01m7zt0gen5r8k2w6y9c3f7h1q",  // lowercase
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1q",  // one lowercase character
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7HIQ",  // I is not Crockford
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7HLQ",  // L is not Crockford
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7HOQ",  // O is not Crockford
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7HUQ",  // U is not Crockford
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H-Q",  // punctuation
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H Q",  // space
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7HÉQ",  // non-ASCII
        " cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q",  // leading space
        "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q\n",  // trailing newline
    ])
    func invalidID(_ text: String) {
        #expect(ConversationID(validating: text) == nil)
    }

    @Test("decoding an id validates it")
    func decodingValidates() throws {
        let decoder = ParleyJSON.makeDecoder()
        #expect(try decoder.decode(AgentID.self, from: Data(#""agt_01KE6SJTQN2G5J8M1P4S7V0Y3B""#.utf8)) == Sample.agentID)
        #expect(throws: DecodingError.self) { try decoder.decode(AgentID.self, from: Data(#""vis_01KE6SJTQN2G5J8M1P4S7V0Y3B""#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(AgentID.self, from: Data(#""agt_01ke6sjtqn2g5j8m1p4s7v0y3b""#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(AgentID.self, from: Data("42".utf8)) }
    }

    @Test("an id encodes as a bare string")
    func encodesAsString() throws {
        #expect(String(decoding: try ParleyJSON.encode([Sample.queueID]), as: UTF8.self) == #"["que_01KE6SJTQM4F7B2X9C3M6P8T1S"]"#)
    }

    @Test("generated ids validate, carry their kind's prefix and encode their millisecond", arguments: [
        Date(timeIntervalSince1970: 0), Sample.openTime, Date(timeIntervalSince1970: 4_102_444_800.999), Date(),
    ])
    func generatedIDsValidate(_ date: Date) {
        let conversation = ConversationID.generate(at: date)
        #expect(conversation.rawValue.hasPrefix("cnv_"))
        #expect(conversation.rawValue.count == 30)
        #expect(ConversationID(validating: conversation.rawValue) == conversation)
        #expect(conversation.rawValue.dropFirst(4).allSatisfy(Self.crockford.contains))
        #expect(Self.millis(of: conversation.rawValue) == UInt64(Timestamp.millis(date)))
        let agent = AgentID.generate(at: date)
        #expect(agent.rawValue.hasPrefix("agt_"))
        #expect(AgentID(validating: agent.rawValue) != nil)
    }

    @Test("the time part of a known moment")
    func knownTimePart() {
        var random = SplitMix64(state: 1)
        #expect(ConversationID.generate(at: Sample.openTime, using: &random).rawValue.hasPrefix("cnv_01M7ZT0GEN"))
        #expect(ConversationID.generate(at: Date(timeIntervalSince1970: 0), using: &random).rawValue.hasPrefix("cnv_0000000000"))
    }

    @Test("the same randomness makes the same id; other randomness another")
    func deterministicGeneration() {
        var first = SplitMix64(state: 42)
        var second = SplitMix64(state: 42)
        var third = SplitMix64(state: 43)
        let a = VisitorID.generate(at: Sample.visitorTime, using: &first)
        let b = VisitorID.generate(at: Sample.visitorTime, using: &second)
        let c = VisitorID.generate(at: Sample.visitorTime, using: &third)
        #expect(a == b)
        #expect(a != c)
        #expect(a.rawValue.prefix(14) == c.rawValue.prefix(14))
    }

    @Test("generated ids sort by creation time, as ids and as strings")
    func sortByTime() {
        var random = SplitMix64(state: 7)
        // A millisecond apart, a second apart, years apart; randomness that would sort them otherwise.
        let base = Sample.openTime.timeIntervalSince1970
        let dates = [0, 0.001, 0.002, 1, 60, 86_400, 365 * 86_400, 10 * 365 * 86_400].map { Date(timeIntervalSince1970: base + $0) }
        let ids = dates.map { ConversationID.generate(at: $0, using: &random) }
        #expect(ids.sorted() == ids)
        #expect(ids.map(\.rawValue).sorted() == ids.map(\.rawValue))
        let shuffled = ids.shuffled(using: &random)
        #expect(shuffled.sorted() == ids)
    }

    @Test("many ids in the same millisecond are distinct")
    func distinctWithinAMillisecond() {
        let ids = (0..<1000).map { _ in ConversationID.generate(at: Sample.openTime) }
        #expect(Set(ids).count == ids.count)
    }
}
