import Foundation
import ParleyCore

/// The fixed values behind the golden fixtures in `Fixtures/` and the examples in docs/protocol.md.
///
/// Every id validates (prefix, `_`, 26 Crockford base32 characters whose first 10 encode the
/// creation millisecond). Every timestamp has a millisecond part that is a multiple of 1/8 s, so it
/// is exact in binary and formats identically on every platform.
enum Sample {
    // MARK: Ids

    static let appID = AppID(rawValue: "app_01KE6SJTQM8N3V5Q2R7H4K9D6W")
    static let queueID = QueueID(rawValue: "que_01KE6SJTQM4F7B2X9C3M6P8T1S")
    static let agentID = AgentID(rawValue: "agt_01KE6SJTQN2G5J8M1P4S7V0Y3B")
    static let visitorID = VisitorID(rawValue: "vis_01M7W0CREA6T9X2B5E8H1K4N7Q")
    static let conversationID = ConversationID(rawValue: "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q")

    /// The store epoch (SQLite: a lowercase UUID made when the database is created).
    static let epoch = "0e5f8a62-3c1d-4b7a-9f2e-6d4c8b1a7e90"
    static let clientMessageID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
    /// Pins raw UTF-8 and unescaped slashes in the encoder's output.
    static let messageText = "Bonjour, ma commande n'est pas arrivée: https://shop.example/orders/42"

    // MARK: Times

    /// 2026-01-05T10:00:00.500Z: the app, queue and agent were created.
    static let setupTime = Date(timeIntervalSince1970: 1_767_607_200.5)
    /// 2026-11-20T08:15:30.250Z: the visitor first came.
    static let visitorTime = Date(timeIntervalSince1970: 1_795_162_530.25)
    /// 2026-11-21T19:40:55.125Z: the conversation was opened.
    static let openTime = Date(timeIntervalSince1970: 1_795_290_055.125)
    /// 2026-11-21T19:40:58.750Z: routing assigned it.
    static let assignTime = Date(timeIntervalSince1970: 1_795_290_058.75)
    /// 2026-11-21T19:41:02.375Z: the visitor wrote.
    static let messageTime = Date(timeIntervalSince1970: 1_795_290_062.375)
    /// 2026-11-21T19:41:10.625Z: the agent read it.
    static let readTime = Date(timeIntervalSince1970: 1_795_290_070.625)
    /// 2026-11-21T19:52:44.875Z: the agent ended it.
    static let endTime = Date(timeIntervalSince1970: 1_795_290_764.875)

    // MARK: Participants

    static let visitor = Participant.visitor(visitorID, name: "Ada")
    static let agent = Participant.agent(agentID, name: "Grace Hopper")

    // MARK: Events (one conversation's history)

    static let openedEvent = ConversationEvent(
        conversationID: conversationID, seq: 1, createdAt: openTime, author: visitor,
        body: .stateChanged(StateChange(from: nil, to: .queued, reason: .opened)))
    static let assignedEvent = ConversationEvent(
        conversationID: conversationID, seq: 2, createdAt: assignTime, author: .system,
        body: .stateChanged(StateChange(from: .queued, to: .assigned, reason: .assigned, agentID: agentID)))
    static let joinedEvent = ConversationEvent(
        conversationID: conversationID, seq: 3, createdAt: assignTime, author: agent,
        body: .participantJoined(ParticipantJoined(participant: agent)))
    static let messageEvent = ConversationEvent(
        conversationID: conversationID, seq: 4, createdAt: messageTime, author: visitor,
        body: .message(MessageBody(clientMessageID: clientMessageID, text: messageText)))
    static let readEvent = ConversationEvent(
        conversationID: conversationID, seq: 5, createdAt: readTime, author: agent,
        body: .read(ReadMarker(readSeq: 4)))
    static let pagePushedEvent = ConversationEvent(
        conversationID: conversationID, seq: 5, createdAt: Date(timeIntervalSince1970: 1_795_290_080.5), author: agent,
        body: .pagePushed(PagePush(clientMessageID: "page-6f2e", url: "https://help.example.com/returns?from=chat", title: "How returns work")))
    static let endedEvent = ConversationEvent(
        conversationID: conversationID, seq: 6, createdAt: endTime, author: agent,
        body: .stateChanged(StateChange(from: .assigned, to: .ended, reason: .endedByAgent)))
    static let leftEvent = ConversationEvent(
        conversationID: conversationID, seq: 7, createdAt: endTime, author: agent,
        body: .participantLeft(ParticipantLeft(participant: agent, reason: .ended)))

    // MARK: Conversation

    /// The conversation right after the assignment (seq 3).
    /// An internal note, written between the message and the read.
    static let note = InternalNote(
        conversationID: conversationID, seq: 1, author: agent, clientNoteID: "5b2f7d1e-8c3a-4e6f-9a1b-2d4c6e8f0a13",
        text: "Parcel lost by the carrier: refund approved, tell her tomorrow", createdAt: Date(timeIntervalSince1970: 1_795_290_066.5))

    static let assignedConversation = Conversation(
        id: conversationID, appID: appID, queueID: queueID, visitorID: visitorID, subject: "Order #42 missing",
        attributes: ["plan": "pro", "locale": "fr-FR"], state: .assigned, agentID: agentID, lastSeq: 3,
        queuePosition: nil, createdAt: openTime, updatedAt: assignTime, queuedAt: nil)
}
