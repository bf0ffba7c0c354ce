import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

/// Row → value conversions shared by the store's queries. Times are Unix milliseconds (BIGINT), as in
/// SQLite, so both stores round-trip exactly the same values.
enum PostgresRows {
    static func string(_ row: PostgresRandomAccessRow, _ column: String) throws -> String { try row[column].decode(String.self) }
    static func optionalString(_ row: PostgresRandomAccessRow, _ column: String) throws -> String? { try row[column].decode(String?.self) }
    static func int(_ row: PostgresRandomAccessRow, _ column: String) throws -> Int64 { try row[column].decode(Int64.self) }
    static func optionalInt(_ row: PostgresRandomAccessRow, _ column: String) throws -> Int64? { try row[column].decode(Int64?.self) }
    static func date(_ row: PostgresRandomAccessRow, _ column: String) throws -> Date { Timestamp.date(millis: try int(row, column)) }

    static func attributes(_ text: String) -> [String: String] { AttributesJSON.decode(text) }

    static func json(_ attributes: [String: String]) -> String { AttributesJSON.encode(attributes) }

    static func app(_ row: PostgresRandomAccessRow) throws -> App {
        App(id: AppID(rawValue: try string(row, "id")), name: try string(row, "name"), createdAt: try date(row, "created_at"))
    }

    static func queue(_ row: PostgresRandomAccessRow) throws -> Queue {
        Queue(id: QueueID(rawValue: try string(row, "id")), appID: AppID(rawValue: try string(row, "app_id")),
              name: try string(row, "name"), createdAt: try date(row, "created_at"))
    }

    static func agent(_ row: PostgresRandomAccessRow, queueIDs: [QueueID]) throws -> Agent {
        Agent(
            id: AgentID(rawValue: try string(row, "id")), appID: AppID(rawValue: try string(row, "app_id")), name: try string(row, "name"),
            email: try string(row, "email"), role: AgentRole(rawValue: try string(row, "role")) ?? .agent, queueIDs: queueIDs,
            capacity: Int(try int(row, "capacity")), availability: Availability(rawValue: try string(row, "availability")) ?? .offline,
            isDisabled: try row["disabled"].decode(Bool.self), createdAt: try date(row, "created_at"))
    }

    static func visitor(_ row: PostgresRandomAccessRow) throws -> Visitor {
        Visitor(
            id: VisitorID(rawValue: try string(row, "id")), appID: AppID(rawValue: try string(row, "app_id")),
            deviceID: try string(row, "device_id"), name: try optionalString(row, "name"), email: try optionalString(row, "email"),
            attributes: attributes(try string(row, "attributes")), createdAt: try date(row, "created_at"),
            userID: try optionalString(row, "user_id"), verifiedFields: try optionalString(row, "verified_fields").map(VerifiedFields.decode))
    }

    static func conversation(_ row: PostgresRandomAccessRow) throws -> Conversation {
        Conversation(
            id: ConversationID(rawValue: try string(row, "id")), appID: AppID(rawValue: try string(row, "app_id")),
            queueID: QueueID(rawValue: try string(row, "queue_id")), visitorID: VisitorID(rawValue: try string(row, "visitor_id")),
            subject: try optionalString(row, "subject"), attributes: attributes(try string(row, "attributes")),
            state: ConversationState(rawValue: try string(row, "state")) ?? .ended,
            agentID: try optionalString(row, "agent_id").map(AgentID.init(rawValue:)), lastSeq: try int(row, "last_seq"),
            createdAt: try date(row, "created_at"), updatedAt: try date(row, "updated_at"),
            queuedAt: try optionalInt(row, "queued_at").map(Timestamp.date(millis:)),
            callback: try CallbackJSON.decode(try optionalString(row, "callback")))
    }

    static func event(_ row: PostgresRandomAccessRow) throws -> ConversationEvent {
        try ParleyJSON.decode(ConversationEvent.self, from: Data(try string(row, "body").utf8))
    }

    static func note(_ row: PostgresRandomAccessRow) throws -> InternalNote {
        InternalNote(
            conversationID: ConversationID(rawValue: try string(row, "conversation_id")), seq: try int(row, "seq"),
            author: .agent(AgentID(rawValue: try string(row, "author_id")), name: try optionalString(row, "author_name")),
            clientNoteID: try string(row, "client_note_id"), text: try string(row, "text"), createdAt: try date(row, "created_at"))
    }

    static func cannedResponse(_ row: PostgresRandomAccessRow) throws -> CannedResponse {
        CannedResponse(
            id: CannedResponseID(rawValue: try string(row, "id")), appID: AppID(rawValue: try string(row, "app_id")),
            ownerID: try optionalString(row, "owner_id").map(AgentID.init(rawValue:)), shortcut: try string(row, "shortcut"), title: try string(row, "title"), text: try string(row, "text"),
            createdAt: try date(row, "created_at"), updatedAt: try date(row, "updated_at"))
    }
}
