import Foundation
import GRDB
import ParleyCore
import ParleyStore

/// Row ↔ value conversions shared by the store's queries.
enum SQLiteRows {
    static func date(_ row: Row, _ column: String) -> Date { Timestamp.date(millis: row[column]) }

    static func optionalDate(_ row: Row, _ column: String) -> Date? {
        (row[column] as Int64?).map(Timestamp.date(millis:))
    }

    static func attributes(_ text: String?) -> [String: String] { AttributesJSON.decode(text) }

    static func json(_ attributes: [String: String]) -> String { AttributesJSON.encode(attributes) }

    static func app(_ row: Row) -> App {
        App(id: AppID(rawValue: row["id"]), name: row["name"], createdAt: date(row, "created_at"))
    }

    static func queue(_ row: Row) -> Queue {
        Queue(id: QueueID(rawValue: row["id"]), appID: AppID(rawValue: row["app_id"]), name: row["name"], createdAt: date(row, "created_at"))
    }

    static func agent(_ row: Row, queueIDs: [QueueID]) -> Agent {
        Agent(
            id: AgentID(rawValue: row["id"]), appID: AppID(rawValue: row["app_id"]), name: row["name"],
            email: row["email"], role: AgentRole(rawValue: row["role"]) ?? .agent, queueIDs: queueIDs,
            capacity: row["capacity"], availability: Availability(rawValue: row["availability"]) ?? .offline,
            isDisabled: row["disabled"], createdAt: date(row, "created_at"))
    }

    static func visitor(_ row: Row) -> Visitor {
        Visitor(
            id: VisitorID(rawValue: row["id"]), appID: AppID(rawValue: row["app_id"]), deviceID: row["device_id"],
            name: row["name"], email: row["email"], attributes: attributes(row["attributes"]), createdAt: date(row, "created_at"),
            userID: row["user_id"], verifiedFields: (row["verified_fields"] as String?).map(VerifiedFields.decode))
    }

    static func conversation(_ row: Row) -> Conversation {
        Conversation(
            id: ConversationID(rawValue: row["id"]), appID: AppID(rawValue: row["app_id"]),
            queueID: QueueID(rawValue: row["queue_id"]), visitorID: VisitorID(rawValue: row["visitor_id"]),
            subject: row["subject"], attributes: attributes(row["attributes"]),
            state: ConversationState(rawValue: row["state"]) ?? .ended,
            agentID: (row["agent_id"] as String?).map(AgentID.init(rawValue:)), lastSeq: row["last_seq"],
            createdAt: date(row, "created_at"), updatedAt: date(row, "updated_at"), queuedAt: optionalDate(row, "queued_at"),
            // Written by this store from a Callback; unreadable only if the file was damaged.
            callback: (try? CallbackJSON.decode(row["callback"])) ?? nil)
    }

    static func event(_ row: Row) throws -> ConversationEvent {
        let body: String = row["body"]
        return try ParleyJSON.decode(ConversationEvent.self, from: Data(body.utf8))
    }
}
