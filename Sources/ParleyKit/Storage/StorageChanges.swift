import Foundation
import ParleyCore

/// One change to the stored history: what a record of ``FileStorage``'s history journal holds, and
/// what ``MemoryStorage`` applies. One definition, so both storages mean the same by each call.
enum HistoryChange: Sendable, Hashable {
    /// ``ParleyStorage/saveEpoch(_:)``.
    case epoch(String)
    /// ``ParleyStorage/saveConversation(_:)``.
    case conversation(Conversation)
    /// ``ParleyStorage/appendEvents(_:to:)``.
    case events(ConversationID, [ConversationEvent])
    /// ``ParleyStorage/resetEvents(of:)``.
    case resetEvents(ConversationID)
    /// ``ParleyStorage/resetHistory(epoch:)``.
    case resetHistory(epoch: String?)
}

extension StoredHistory {
    /// Applies one change.
    mutating func apply(_ change: HistoryChange) {
        switch change {
        case .epoch(let epoch):
            self.epoch = epoch
        case .conversation(let conversation):
            conversations[conversation.id] = conversation
        case .events(let id, let added):
            // Taken out while it grows, so that the array is not copied for each record.
            let key = events.index(forKey: id).map { events.keys[$0] } ?? id
            var stored = events.removeValue(forKey: id) ?? []
            for var event in added where event.seq > (stored.last?.seq ?? 0) {
                // Decoded strings repeated in every event share one copy: the conversation id, and
                // the author when a recent event has the same one.
                event.conversationID = key
                if let known = stored.suffix(8).last(where: { $0.author == event.author }) { event.author = known.author }
                stored.append(event)
            }
            events[key] = stored
        case .resetEvents(let id):
            events[id] = nil
        case .resetHistory(let epoch):
            self.epoch = epoch
            events = [:]
        }
    }
}

/// One change to the stored outbox: a record of ``FileStorage``'s outbox journal, or what
/// ``MemoryStorage`` applies.
enum OutboxChange: Sendable, Hashable {
    /// ``ParleyStorage/appendOutbox(_:)``.
    case append(OutboxItem)
    /// ``ParleyStorage/updateOutbox(_:)``.
    case update(OutboxItem)
    /// ``ParleyStorage/removeOutbox(clientMessageID:)``.
    case remove(clientMessageID: String)
}

extension Array where Element == OutboxItem {
    /// Applies one change.
    mutating func apply(_ change: OutboxChange) {
        switch change {
        case .append(let item):
            // The same id twice (an append replayed after a crash) keeps the first place.
            if let index = firstIndex(where: { $0.clientMessageID == item.clientMessageID }) { self[index] = item } else { append(item) }
        case .update(let item):
            if let index = firstIndex(where: { $0.clientMessageID == item.clientMessageID }) { self[index] = item }
        case .remove(let id):
            removeAll { $0.clientMessageID == id }
        }
    }
}

// MARK: - Journal records

// Each change is one JSON object with a `kind`: `{"kind":"events","conversation_id":"…","events":[…]}`.
// New kinds may be added; a record of an unknown kind ends what a journal can be read to.

extension HistoryChange: Codable {
    private enum Kind: String, Codable { case epoch, conversation, events, resetEvents = "reset_events", resetHistory = "reset_history" }
    private enum CodingKeys: String, CodingKey { case kind, epoch, conversation, conversationID = "conversation_id", events }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .epoch: self = .epoch(try container.decode(String.self, forKey: .epoch))
        case .conversation: self = .conversation(try container.decode(Conversation.self, forKey: .conversation))
        case .events:
            self = .events(try container.decode(ConversationID.self, forKey: .conversationID),
                           try container.decode([ConversationEvent].self, forKey: .events))
        case .resetEvents: self = .resetEvents(try container.decode(ConversationID.self, forKey: .conversationID))
        case .resetHistory: self = .resetHistory(epoch: try container.decodeIfPresent(String.self, forKey: .epoch))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .epoch(let epoch):
            try container.encode(Kind.epoch, forKey: .kind)
            try container.encode(epoch, forKey: .epoch)
        case .conversation(let conversation):
            try container.encode(Kind.conversation, forKey: .kind)
            try container.encode(conversation, forKey: .conversation)
        case .events(let id, let events):
            try container.encode(Kind.events, forKey: .kind)
            try container.encode(id, forKey: .conversationID)
            try container.encode(events, forKey: .events)
        case .resetEvents(let id):
            try container.encode(Kind.resetEvents, forKey: .kind)
            try container.encode(id, forKey: .conversationID)
        case .resetHistory(let epoch):
            try container.encode(Kind.resetHistory, forKey: .kind)
            try container.encodeIfPresent(epoch, forKey: .epoch)
        }
    }
}

extension OutboxChange: Codable {
    private enum Kind: String, Codable { case append, update, remove }
    private enum CodingKeys: String, CodingKey { case kind, item, clientMessageID = "client_message_id" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .kind) {
        case .append: self = .append(try container.decode(OutboxItem.self, forKey: .item))
        case .update: self = .update(try container.decode(OutboxItem.self, forKey: .item))
        case .remove: self = .remove(clientMessageID: try container.decode(String.self, forKey: .clientMessageID))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .append(let item):
            try container.encode(Kind.append, forKey: .kind)
            try container.encode(item, forKey: .item)
        case .update(let item):
            try container.encode(Kind.update, forKey: .kind)
            try container.encode(item, forKey: .item)
        case .remove(let id):
            try container.encode(Kind.remove, forKey: .kind)
            try container.encode(id, forKey: .clientMessageID)
        }
    }
}
