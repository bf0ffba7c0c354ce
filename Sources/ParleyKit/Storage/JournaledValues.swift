import Foundation
import ParleyCore

extension StoredHistory: Journaled {
    /// Events per record in a compacted journal, so no record grows with a conversation's length.
    static let eventsPerRecord = 500

    init() { self.init(epoch: nil) }

    var compacted: [HistoryChange] {
        var changes: [HistoryChange] = epoch.map { [.epoch($0)] } ?? []
        for id in Set(conversations.keys).union(events.keys).sorted() {
            if let conversation = conversations[id] { changes.append(.conversation(conversation)) }
            let stored = events[id] ?? []
            for start in stride(from: 0, to: stored.count, by: Self.eventsPerRecord) {
                changes.append(.events(id, Array(stored[start..<min(start + Self.eventsPerRecord, stored.count)])))
            }
        }
        return changes
    }

    static func account(_ change: HistoryChange, bytes: Int, in ledger: inout JournalLedger) {
        switch change {
        case .epoch: ledger.replace("epoch", bytes: bytes)
        case .conversation(let conversation): ledger.replace("conversation \(conversation.id)", bytes: bytes)
        case .events(let id, _): ledger.add("events \(id)", bytes: bytes)
        case .resetEvents(let id): ledger.remove("events \(id)")
        case .resetHistory:
            ledger.removeAll(prefix: "events ")
            ledger.replace("epoch", bytes: bytes)
        }
    }
}

extension Array: Journaled where Element == OutboxItem {
    var compacted: [OutboxChange] { map { .append($0) } }

    static func account(_ change: OutboxChange, bytes: Int, in ledger: inout JournalLedger) {
        switch change {
        case .append(let item), .update(let item): ledger.replace(item.clientMessageID, bytes: bytes)
        case .remove(let id): ledger.remove(id)
        }
    }
}
