import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// The two hand-written pieces of the message hot path agree with Foundation's JSON exactly:
/// a `send` frame read without `JSONDecoder`, and a message event written without `JSONEncoder`.
struct FastPathTests {
    static let conversation = ConversationID(rawValue: "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q")
    static let texts = [
        "Hello!", "", "a \"quoted\" word", #"back\slash"#, "https://shop.example/orders/42", "line\nbreak\r\ttab",
        "\u{0}\u{1}\u{1F}\u{7F}", "ünïcødé 日本語 🎉👩‍👩‍👧", "\u{2028}\u{2029}", "e\u{301}", String(repeating: "x", count: 4000),
        "</script><script>alert(1)</script>", "\u{FEFF}bom", "\u{8}\u{C}",
    ]

    // MARK: Writing a message event

    @Test(arguments: texts)
    func messageEvent_isWhatJSONEncoderWrites(_ text: String) throws {
        let authors: [Participant] = [
            .visitor(VisitorID(rawValue: "vis_01M7W0CREA6T9X2B5E8H1K4N7Q"), name: "Ada \"the\" /Visitor/"),
            .visitor(VisitorID(rawValue: "vis_01M7W0CREA6T9X2B5E8H1K4N7Q"), name: nil),
            .agent(AgentID(rawValue: "agt_01KE6SJTQN2G5J8M1P4S7V0Y3B"), name: text),
            .system,
        ]
        let dates = [Date(timeIntervalSince1970: 1_795_290_062.375), Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1.5)]
        for author in authors {
            for date in dates {
                let event = ConversationEvent(conversationID: Self.conversation, seq: 42, createdAt: date, author: author,
                                              body: .message(MessageBody(clientMessageID: "id-\(text.prefix(3))", text: text)))
                let expected = String(decoding: try ParleyJSON.encode(event), as: UTF8.self)
                #expect(FrameText.messageEvent(event) == expected)
            }
        }
    }

    @Test func messageEvent_isNilForOtherEvents() {
        let event = ConversationEvent(conversationID: Self.conversation, seq: 1, createdAt: Date(), author: .system,
                                      body: .read(ReadMarker(readSeq: 1)))
        #expect(FrameText.messageEvent(event) == nil)
    }

    // MARK: Reading a send frame

    @Test(arguments: texts)
    func fastSend_readsWhatJSONEncoderWrote(_ text: String) throws {
        for ref in [nil, "1", "ref \"with\" quotes"] {
            let frame = ClientFrame.send(.init(ref: ref, conversationID: Self.conversation, clientMessageID: "c-\(text.count)", text: text))
            let json = String(decoding: try ParleyJSON.encode(frame), as: UTF8.self)
            #expect(ClientFrame.fastSend(json) == frame, "\(json)")
        }
    }

    /// Hand-written frames: each one the fast path reads must read the same through JSONDecoder, and
    /// the plain ones must take the fast path.
    @Test func fastSend_agreesWithJSONDecoder_orStepsAside() throws {
        let id = Self.conversation.rawValue
        let plain: [String] = [
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"hi"}"#,
            #" { "text" : "h\u00e9 \ud83c\udf89 \/ \"x\" \\ \b\f\n\r\t" , "type":"send", "ref":null, "client_message_id":"b", "conversation_id":"\#(id)" } "#,
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"c","text":"x","ref":"9","extra":true,"more":null}"#,
            "{\"type\":\"send\",\n\"conversation_id\":\"\(id)\",\r\n\"client_message_id\":\"d\",\t\"text\":\"\"}",
        ]
        let stepsAside: [String] = [
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"hi","ref":7}"#,          // a number
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"hi","ref":true}"#,       // wrong type
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"hi","meta":{}}"#,        // nested
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"hi","text":"again"}"#,  // repeated key
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"\ud83c"}"#,             // lone surrogate
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"\x"}"#,                 // bad escape
            "{\"type\":\"send\",\"conversation_id\":\"\(id)\",\"client_message_id\":\"a\",\"text\":\"raw\u{1}control\"}",
            #"{"type":"send","conversation_id":"cnv_nope","client_message_id":"a","text":"hi"}"#,              // not an id
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a"}"#,                             // missing text
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"hi"} x"#,              // trailing text
            #"{"type":"send","conversation_id":"\#(id)","client_message_id":"a","text":"hi",}"#,               // trailing comma
            #"{"type":"ping","ref":"1"}"#, #"{"type":"typing","conversation_id":"\#(id)","is_typing":true}"#, "", "[]", "{",
        ]
        let decoder = ParleyJSON.makeDecoder()
        for text in plain {
            let fast = try #require(ClientFrame.fastSend(text), "plain sends take the fast path: \(text)")
            #expect(fast == (try decoder.decode(ClientFrame.self, from: Data(text.utf8))), "\(text)")
        }
        for text in stepsAside {
            #expect(ClientFrame.fastSend(text) == nil, "\(text)")
        }
    }

    /// Random texts, every Unicode plane and escape, through JSONEncoder and back through the fast path.
    @Test func fastSend_randomTexts_roundTrip() throws {
        var generator = SplitMix64(state: 0x5EED)
        let pools: [ClosedRange<UInt32>] = [0x0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF]
        for _ in 0..<500 {
            var text = ""
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                let pool = pools.randomElement(using: &generator)!
                if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &generator)) { text.unicodeScalars.append(scalar) }
            }
            let frame = ClientFrame.send(.init(ref: "r", conversationID: Self.conversation, clientMessageID: "m", text: text))
            let json = String(decoding: try ParleyJSON.encode(frame), as: UTF8.self)
            #expect(ClientFrame.fastSend(json) == frame)
            let event = ConversationEvent(conversationID: Self.conversation, seq: 1, createdAt: Date(timeIntervalSince1970: 1_800_000_000),
                                          author: .system, body: .message(MessageBody(clientMessageID: text, text: text)))
            #expect(FrameText.messageEvent(event) == String(decoding: try ParleyJSON.encode(event), as: UTF8.self))
        }
    }

    // MARK: Reading attributes

    @Test func stringMap_agreesWithJSONDecoder_orStepsAside() throws {
        let maps: [[String: String]] = [[:], ["plan": "pro"], ["a/b": "c\"d\\e\n", "ünï": "🎉", "": ""]]
        for map in maps {
            let json = String(decoding: try JSONEncoder().encode(map), as: UTF8.self)
            #expect(ParleyJSON.stringMap(json) == map, "\(json)")
        }
        for text in [#"{"a":1}"#, #"{"a":null}"#, #"{"a":{"b":"c"}}"#, #"{"a":"b","a":"c"}"#, "[]", "", "{"] {
            #expect(ParleyJSON.stringMap(text) == nil, "\(text)")
        }
    }
}
