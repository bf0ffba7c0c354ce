import Foundation
import ParleyCore
import Testing

@Suite("Frame decoding")
struct FrameDecodingTests {
    static let conversation = Sample.conversationID.rawValue

    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try ParleyJSON.makeDecoder().decode(type, from: Data(json.utf8))
    }

    private func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try ParleyJSON.makeEncoder().encode(value), as: UTF8.self)
    }

    // MARK: Unknown types

    @Test("an unknown client frame type throws FrameTypeError naming it", arguments: ["hello", "Send", "", "ack", "queue_position"])
    func unknownClientType(_ type: String) throws {
        let json = #"{"type": "\#(type)", "conversation_id": "\#(Self.conversation)"}"#
        let error = #expect(throws: FrameTypeError.self) { try decode(ClientFrame.self, json) }
        #expect(error?.type == type)
        #expect(error?.description == "unknown frame type \"\(type)\"")
    }

    @Test("an unknown server frame type throws FrameTypeError naming it", arguments: ["hello", "Ready", "", "send", "subscribe"])
    func unknownServerType(_ type: String) throws {
        let json = #"{"type": "\#(type)", "epoch": "e"}"#
        let error = #expect(throws: FrameTypeError.self) { try decode(ServerFrame.self, json) }
        #expect(error?.type == type)
    }

    @Test("an unknown event type (a newer server's) decodes as unknown, keeping its seq")
    func unknownEventType() throws {
        let json = #"{"type": "event", "event": {"conversation_id": "\#(Self.conversation)", "seq": 7, "created_at": "2026-11-21T19:40:55.125Z", "author": {"role": "system"}, "type": "poll", "question": "?"}}"#
        guard case .event(let event) = try decode(ServerFrame.self, json) else {
            Issue.record("not an event frame")
            return
        }
        #expect(event.seq == 7 && event.body == .unknown(type: "poll") && !event.isContent && event.clientMessageID == nil)
        // An event without the common fields is still refused.
        #expect(throws: DecodingError.self) {
            try decode(ServerFrame.self, #"{"type": "event", "event": {"type": "poll"}}"#)
        }
    }

    // MARK: Missing and malformed fields

    static let clientFramesMissingAField: [String] = [
        #"{"conversation_id": "\#(conversation)", "after_seq": 0}"#,  // no type
        #"{"type": 7}"#,  // type of the wrong kind
        #"{"type": "subscribe", "after_seq": 0}"#,
        #"{"type": "subscribe", "conversation_id": "\#(conversation)"}"#,
        #"{"type": "unsubscribe"}"#,
        #"{"type": "send", "ref": "1", "conversation_id": "\#(conversation)", "client_message_id": "m1"}"#,
        #"{"type": "send", "ref": "1", "conversation_id": "\#(conversation)", "text": "Hi"}"#,
        #"{"type": "send", "client_message_id": "m1", "text": "Hi"}"#,
        #"{"type": "typing", "conversation_id": "\#(conversation)"}"#,
        #"{"type": "typing", "conversation_id": "\#(conversation)", "is_typing": "yes"}"#,
        #"{"type": "read", "conversation_id": "\#(conversation)"}"#,
        #"{"type": "read", "conversation_id": "\#(conversation)", "seq": "4"}"#,
        #"{"type": "subscribe", "conversation_id": "cnv_nope", "after_seq": 0}"#,  // not a valid id
        #"{"type": "subscribe", "conversation_id": "que_01M7ZT0GEN5R8K2W6Y9C3F7H1Q", "after_seq": 0}"#,  // another kind's id
        #"{"type": "ping""#,  // not JSON
    ]

    @Test("a client frame missing or mistyping a required field throws DecodingError", arguments: clientFramesMissingAField)
    func clientMissingField(_ json: String) {
        #expect(throws: DecodingError.self) { try decode(ClientFrame.self, json) }
    }

    static let serverFramesMissingAField: [String] = [
        #"{"type": "ready", "participant": {"role": "system"}, "heartbeat_seconds": 30}"#,
        #"{"type": "ready", "epoch": "e", "heartbeat_seconds": 30}"#,
        #"{"type": "ready", "epoch": "e", "participant": {"role": "system"}}"#,
        #"{"type": "ready", "epoch": "e", "participant": {"role": "robot"}, "heartbeat_seconds": 30}"#,
        #"{"type": "event"}"#,
        #"{"type": "event", "event": {"conversation_id": "\#(conversation)", "created_at": "2026-11-21T19:40:55.125Z", "author": {"role": "system"}, "type": "read", "read_seq": 1}}"#,
        #"{"type": "event", "event": {"conversation_id": "\#(conversation)", "seq": 2, "author": {"role": "system"}, "type": "read", "read_seq": 1}}"#,
        #"{"type": "event", "event": {"conversation_id": "\#(conversation)", "seq": 2, "created_at": "yesterday", "author": {"role": "system"}, "type": "read", "read_seq": 1}}"#,
        #"{"type": "event", "event": {"conversation_id": "\#(conversation)", "seq": 2, "created_at": "2026-11-21T19:40:55.125Z", "author": {"role": "system"}, "type": "read"}}"#,
        #"{"type": "event", "event": {"conversation_id": "\#(conversation)", "seq": 2, "created_at": "2026-11-21T19:40:55.125Z", "author": {"role": "system"}, "type": "message", "text": "Hi"}}"#,
        #"{"type": "event", "event": {"conversation_id": "\#(conversation)", "seq": 2, "created_at": "2026-11-21T19:40:55.125Z", "author": {"role": "system"}, "type": "state_changed", "from": "queued", "reason": "assigned"}}"#,
        #"{"type": "event", "event": {"conversation_id": "\#(conversation)", "seq": 2, "created_at": "2026-11-21T19:40:55.125Z", "author": {"role": "system"}, "type": "state_changed", "to": "closed", "reason": "assigned"}}"#,
        #"{"type": "ack", "ref": "1", "duplicate": false}"#,
        #"{"type": "subscribed", "conversation_id": "\#(conversation)", "epoch": "e"}"#,
        #"{"type": "reset", "conversation_id": "\#(conversation)"}"#,
        #"{"type": "typing", "conversation_id": "\#(conversation)", "is_typing": true}"#,
        #"{"type": "queue_position", "conversation_id": "\#(conversation)"}"#,
        #"{"type": "conversation"}"#,
        #"{"type": "error", "ref": "1", "message": "m"}"#,
    ]

    @Test("a server frame missing or mistyping a required field throws DecodingError", arguments: serverFramesMissingAField)
    func serverMissingField(_ json: String) {
        #expect(throws: DecodingError.self) { try decode(ServerFrame.self, json) }
    }

    @Test("a missing field is reported as keyNotFound with its wire name")
    func keyNotFoundNamesField() throws {
        let json = #"{"type": "send", "ref": "1", "conversation_id": "\#(Self.conversation)", "client_message_id": "m1"}"#
        do {
            _ = try decode(ClientFrame.self, json)
            Issue.record("decoding succeeded")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "text")
        }
    }

    // MARK: Optional fields

    @Test("nil optionals are omitted, not written as null")
    func nilOptionalsOmitted() throws {
        #expect(try encode(ClientFrame.ping(.init())) == #"{"type":"ping"}"#)
        #expect(try encode(ServerFrame.pong(.init(ref: nil))) == #"{"type":"pong"}"#)
        #expect(try encode(ClientFrame.subscribe(.init(conversationID: Sample.conversationID, afterSeq: 0)))
            == #"{"after_seq":0,"conversation_id":"\#(Self.conversation)","type":"subscribe"}"#)
        #expect(try encode(ServerFrame.error(.init(ref: nil, code: "bad_frame", message: "frames are JSON text")))
            == #"{"code":"bad_frame","message":"frames are JSON text","type":"error"}"#)
        #expect(try encode(Participant.system) == #"{"role":"system"}"#)
        #expect(try encode(Sample.openedEvent)
            == #"{"author":{"id":"vis_01M7W0CREA6T9X2B5E8H1K4N7Q","name":"Ada","role":"visitor"},"conversation_id":"\#(Self.conversation)","created_at":"2026-11-21T19:40:55.125Z","reason":"opened","seq":1,"to":"queued","type":"state_changed"}"#)
    }

    @Test("optional fields may be absent or null on input")
    func optionalsAbsentOrNull() throws {
        let absent = try decode(ClientFrame.self, #"{"type": "send", "conversation_id": "\#(Self.conversation)", "client_message_id": "m1", "text": "Hi"}"#)
        let null = try decode(ClientFrame.self, #"{"type": "send", "ref": null, "conversation_id": "\#(Self.conversation)", "client_message_id": "m1", "text": "Hi"}"#)
        let expected = ClientFrame.send(.init(ref: nil, conversationID: Sample.conversationID, clientMessageID: "m1", text: "Hi"))
        #expect(absent == expected)
        #expect(null == expected)
    }

    @Test("unknown extra fields are ignored")
    func extraFieldsIgnored() throws {
        let frame = try decode(ClientFrame.self, #"{"type": "ping", "ref": "9", "trace": {"id": 1}}"#)
        #expect(frame == .ping(.init(ref: "9")))
    }

    @Test("every event reason and state decodes from its wire name", arguments: [
        ("opened", StateChange.Reason.opened), ("assigned", .assigned), ("ended_by_visitor", .endedByVisitor),
        ("ended_by_agent", .endedByAgent), ("cancelled", .cancelled), ("reopened", .reopened), ("requeued", .requeued),
    ])
    func stateChangeReasons(_ wire: String, _ reason: StateChange.Reason) throws {
        #expect(reason.rawValue == wire)
        #expect(try encode(reason) == "\"\(wire)\"")
    }

    @Test("wire names of enumerations")
    func enumerationNames() {
        #expect(ConversationState.allCases.map(\.rawValue) == ["queued", "assigned", "ended"])
        #expect(Availability.allCases.map(\.rawValue) == ["online", "away", "offline"])
        #expect(AgentRole.allCases.map(\.rawValue) == ["agent", "admin"])
        #expect([ParticipantLeft.Reason.ended, .offline, .transferred].map(\.rawValue) == ["ended", "offline", "transferred"])
        #expect([Participant.Role.visitor, .agent, .system].map(\.rawValue) == ["visitor", "agent", "system"])
    }
}
