import Foundation
import ParleyCore
import Testing

/// Frames spliced around an encoded event are exactly what the encoder writes for the same frame.
@Suite("Frame text")
struct FrameTextTests {
    static func encoded<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try ParleyJSON.encode(value), as: UTF8.self)
    }

    static let refs: [String?] = [
        nil, "1", "r-42", "", #"quote " and \ backslash"#, "a/b", "line\nbreak\ttab\r\u{08}\u{0C}", "\u{00}\u{01}\u{1F}\u{7F}",
        "émoji 🎉 and 中文", String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) }),
    ]

    @Test(arguments: [Sample.messageEvent, Sample.openedEvent])
    func event_matchesTheEncoder(_ event: ConversationEvent) throws {
        #expect(FrameText.event(encodedEvent: try Self.encoded(event)) == (try Self.encoded(ServerFrame.event(event))))
    }

    @Test(arguments: refs, [false, true])
    func ack_matchesTheEncoder(_ ref: String?, _ duplicate: Bool) throws {
        let event = Sample.messageEvent
        let spliced = FrameText.ack(ref: ref, duplicate: duplicate, encodedEvent: try Self.encoded(event))
        #expect(spliced == (try Self.encoded(ServerFrame.ack(.init(ref: ref, duplicate: duplicate, event: event)))))
        #expect(try ParleyJSON.decode(ServerFrame.self, from: Data(spliced.utf8)) == .ack(.init(ref: ref, duplicate: duplicate, event: event)))
    }
}
