import Foundation
import ParleyCore
import Testing

/// A golden fixture: a file in `Fixtures/` and the Swift value it must be.
struct GoldenFixture: Sendable, CustomTestStringConvertible {
    enum Value: Hashable, Sendable {
        case client(ClientFrame)
        case server(ServerFrame)
        case errorBody(ErrorBody)
    }

    /// The file name without `.json`.
    var name: String
    var value: Value

    var testDescription: String { name + ".json" }

    /// Decodes the fixture's bytes as the value's type.
    func decode(_ data: Data) throws -> Value {
        let decoder = ParleyJSON.makeDecoder()
        return switch value {
        case .client: .client(try decoder.decode(ClientFrame.self, from: data))
        case .server: .server(try decoder.decode(ServerFrame.self, from: data))
        case .errorBody: .errorBody(try decoder.decode(ErrorBody.self, from: data))
        }
    }

    /// Encodes a value with Parley's encoder.
    static func encode(_ value: Value) throws -> Data {
        let encoder = ParleyJSON.makeEncoder()
        return switch value {
        case .client(let frame): try encoder.encode(frame)
        case .server(let frame): try encoder.encode(frame)
        case .errorBody(let body): try encoder.encode(body)
        }
    }

    /// The wire `type` this fixture pins: `send`, `event/message`, …
    var wireType: String {
        switch value {
        case .client(let frame): "client/" + frame.type
        case .server(.event(let event)): "server/event/" + event.body.type
        case .server(let frame): "server/" + frame.type
        case .errorBody: "error-body"
        }
    }
}

enum Fixtures {
    /// Every golden fixture, with the value it must decode to and encode from.
    static let all: [GoldenFixture] = [
        // Client → server
        .init(name: "client-subscribe", value: .client(.subscribe(.init(
            conversationID: Sample.conversationID, afterSeq: 12, epoch: Sample.epoch)))),
        .init(name: "client-unsubscribe", value: .client(.unsubscribe(.init(conversationID: Sample.conversationID)))),
        .init(name: "client-send", value: .client(.send(.init(
            ref: "1", conversationID: Sample.conversationID, clientMessageID: Sample.clientMessageID, text: Sample.messageText)))),
        .init(name: "client-typing", value: .client(.typing(.init(conversationID: Sample.conversationID, isTyping: true)))),
        .init(name: "client-read", value: .client(.read(.init(ref: "2", conversationID: Sample.conversationID, seq: 4)))),
        .init(name: "client-ping", value: .client(.ping(.init(ref: "3")))),

        // Server → client
        .init(name: "server-ready", value: .server(.ready(.init(epoch: Sample.epoch, participant: Sample.visitor, heartbeatSeconds: 30)))),
        .init(name: "server-event-message", value: .server(.event(Sample.messageEvent))),
        .init(name: "server-event-state_changed", value: .server(.event(Sample.assignedEvent))),
        .init(name: "server-event-participant_joined", value: .server(.event(Sample.joinedEvent))),
        .init(name: "server-event-participant_left", value: .server(.event(Sample.leftEvent))),
        .init(name: "server-event-read", value: .server(.event(Sample.readEvent))),
        .init(name: "server-event-page_pushed", value: .server(.event(Sample.pagePushedEvent))),
        .init(name: "server-ack", value: .server(.ack(.init(ref: "1", duplicate: false, event: Sample.messageEvent)))),
        .init(name: "server-subscribed", value: .server(.subscribed(.init(
            conversationID: Sample.conversationID, lastSeq: 14, epoch: Sample.epoch)))),
        .init(name: "server-reset", value: .server(.reset(.init(conversationID: Sample.conversationID, epoch: Sample.epoch)))),
        .init(name: "server-typing", value: .server(.typing(.init(
            conversationID: Sample.conversationID, participant: Sample.agent, isTyping: true)))),
        .init(name: "server-queue_position", value: .server(.queuePosition(.init(conversationID: Sample.conversationID, position: 2)))),
        .init(name: "server-conversation", value: .server(.conversation(Sample.assignedConversation))),
        .init(name: "server-error", value: .server(.error(.init(ref: "1", code: "not_found", message: "conversation not found")))),
        .init(name: "server-pong", value: .server(.pong(.init(ref: "3")))),
        .init(name: "server-note", value: .server(.note(Sample.note))),

        // HTTP
        .init(name: "error-body", value: .errorBody(ErrorBody(code: "not_found", message: "conversation not found"))),
    ]

    /// The folder of fixture files inside the test bundle.
    static var directory: URL {
        get throws {
            try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil), "the Fixtures resource folder is missing")
        }
    }

    /// A fixture's bytes without one trailing newline.
    static func data(_ name: String) throws -> Data {
        var data = try Data(contentsOf: directory.appendingPathComponent(name + ".json"))
        if data.last == UInt8(ascii: "\n") { data.removeLast() }
        return data
    }
}

@Suite("Golden fixtures")
struct GoldenFixtureTests {
    @Test("decodes to the expected value", arguments: Fixtures.all)
    func decodes(_ fixture: GoldenFixture) throws {
        let decoded = try fixture.decode(Fixtures.data(fixture.name))
        #expect(decoded == fixture.value)
    }

    @Test("re-encodes to the same bytes", arguments: Fixtures.all)
    func roundTrips(_ fixture: GoldenFixture) throws {
        let bytes = try Fixtures.data(fixture.name)
        let reencoded = try GoldenFixture.encode(fixture.decode(bytes))
        #expect(String(decoding: reencoded, as: UTF8.self) == String(decoding: bytes, as: UTF8.self))
    }

    @Test("the expected value encodes to the fixture's bytes", arguments: Fixtures.all)
    func encodes(_ fixture: GoldenFixture) throws {
        let bytes = try Fixtures.data(fixture.name)
        let encoded = try GoldenFixture.encode(fixture.value)
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: bytes, as: UTF8.self))
    }

    @Test("is one compact JSON object with sorted keys and unescaped slashes", arguments: Fixtures.all)
    func isCompact(_ fixture: GoldenFixture) throws {
        let text = String(decoding: try Fixtures.data(fixture.name), as: UTF8.self)
        #expect(text.hasPrefix("{") && text.hasSuffix("}"))
        #expect(!text.contains("\n"))
        #expect(!text.contains("\\/"))
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        #expect(object is [String: Any])
    }

    @Test("every file in Fixtures/ has an entry, and every entry a file")
    func filesMatchTable() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path)
            .filter { !$0.hasPrefix(".") }
        #expect(Set(files) == Set(Fixtures.all.map { $0.name + ".json" }))
        #expect(files.allSatisfy { $0.hasSuffix(".json") })
    }

    @Test("every frame type and event type has a fixture")
    func coversEveryType() {
        let covered = Set(Fixtures.all.map(\.wireType))
        let expected: Set<String> = [
            "client/subscribe", "client/unsubscribe", "client/send", "client/typing", "client/read", "client/ping",
            "server/ready", "server/ack", "server/subscribed", "server/reset", "server/typing", "server/queue_position",
            "server/conversation", "server/error", "server/pong", "server/note",
            "server/event/message", "server/event/state_changed", "server/event/participant_joined",
            "server/event/participant_left", "server/event/read", "server/event/page_pushed",
            "error-body",
        ]
        #expect(covered == expected)
    }

    @Test("each fixture is named after its wire type", arguments: Fixtures.all)
    func nameMatchesType(_ fixture: GoldenFixture) {
        let expected = fixture.wireType.replacingOccurrences(of: "/", with: "-")
        #expect(fixture.name == expected)
    }
}
