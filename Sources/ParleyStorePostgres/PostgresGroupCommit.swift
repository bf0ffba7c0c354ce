import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

/// Many conversation changes in one PostgreSQL transaction: the group commit (decision 0008).
///
/// One change alone costs four round trips (BEGIN, the locking read, the write, COMMIT) and a WAL
/// flush. A batch of N plain messages costs about six in all: BEGIN, one read that locks every
/// conversation of the batch, one idempotency lookup for all of them, one multi-row INSERT of the
/// events, one UPDATE of the conversations, COMMIT.
///
/// - Locks: every conversation of the batch is locked by one statement, in id order, before any
///   other lock. Two nodes' batches therefore never deadlock on conversations; agents' rows (locked
///   after, decision 0006) could in theory, and PostgreSQL then fails one batch, which runs again
///   change by change.
/// - Decisions: made in order, against rows read once and kept up to date in memory by each
///   decision's own writes. A change that needs more than its conversation's row (an open, an
///   assignment, a transfer, an end, a read marker) first writes what the batch decided so far, so
///   its reads see it, then reads as it would alone.
/// - Failures: a refused change (decided from what was read) fails alone and writes nothing. A
///   failing statement aborts the transaction, so nothing of the batch is stored, and each change
///   then runs in a transaction of its own: the answers are those each would have had alone.
extension PostgresStore {
    /// One change handed to the group commit.
    struct CommitUnit: Sendable {
        var change: ConversationChange
        var effects: any CommitEffects
    }

    /// Runs a batch: together when it can, each alone when the transaction fails.
    func runCommitBatch(_ units: [CommitUnit]) async throws -> [Result<ConversationCommit, any Error>] {
        if units.count == 1 { return [await Self.result { try await self.commitAlone(units[0]) }] }
        do {
            return try await transaction { connection in try await commitTogether(units, on: connection) }
        } catch {
            logger.debug("group commit failed; each change runs alone", metadata: ["parley.batch": "\(units.count)", "error": "\(error)"])
            var results: [Result<ConversationCommit, any Error>] = []
            for unit in units { results.append(await Self.result { try await self.commitAlone(unit) }) }
            return results
        }
    }

    private static func result(_ body: () async throws -> ConversationCommit) async -> Result<ConversationCommit, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    private func commitTogether(_ units: [CommitUnit], on connection: PostgresConnection) async throws -> [Result<ConversationCommit, any Error>] {
        var rows = try await lockedRows(units, on: connection)
        var stored = try await storedMessages(units, on: connection)
        var pending: [StoreWrite] = []
        var results: [Result<ConversationCommit, any Error>] = []
        results.reserveCapacity(units.count)
        for unit in units {
            let change = unit.change
            let reads = ConversationLifecycle.reads(for: change)
            var context: CommitContext
            if reads.needsOnlyTheRow {
                let row = rows[change.conversationID].flatMap { $0.conversation.appID == change.appID ? $0 : nil }
                context = CommitContext(current: row?.conversation, currentRank: row?.rank)
                if let clientMessageID = reads.clientMessageID,
                   let json = stored[MessageKey(conversation: change.conversationID, clientMessageID: clientMessageID)] {
                    context.storedMessage = (try ParleyJSON.decode(ConversationEvent.self, from: Data(json.utf8)), json)
                }
            } else {
                try await run(pending, on: connection)
                pending = []
                context = try await self.context(for: change, on: connection)
            }
            let decision: CommitDecision
            do {
                decision = try ConversationLifecycle.decide(change, context: context, effects: unit.effects)
            } catch {
                results.append(.failure(error))
                continue
            }
            for write in decision.writes {
                switch write {
                case .insertConversation(let conversation, let rank), .updateConversation(let conversation, let rank):
                    rows[conversation.id] = LockedRow(conversation: conversation, rank: rank)
                case .touchConversation(let id, let lastSeq, let updatedAt):
                    rows[id]?.conversation.lastSeq = lastSeq
                    rows[id]?.conversation.updatedAt = updatedAt
                case .insertEvent(let event, let json):
                    if let clientMessageID = event.clientMessageID {
                        stored[MessageKey(conversation: event.conversationID, clientMessageID: clientMessageID)] = json
                    }
                default:
                    break
                }
            }
            pending += decision.writes
            results.append(.success(decision.commit))
        }
        try await run(pending, on: connection)
        return results
    }

    /// A conversation's row as the batch last left it.
    private struct LockedRow {
        var conversation: Conversation
        var rank: Int64?
    }

    private struct MessageKey: Hashable {
        var conversation: ConversationID
        var clientMessageID: String
    }

    /// Locks every conversation of the batch, in id order, and reads them.
    private func lockedRows(_ units: [CommitUnit], on connection: PostgresConnection) async throws -> [ConversationID: LockedRow] {
        let ids = Set(units.map(\.change.conversationID.rawValue)).sorted()
        var locked: [ConversationID: LockedRow] = [:]
        for row in try await rows("SELECT * FROM conversations WHERE id = ANY(\(ids)) ORDER BY id FOR UPDATE", on: connection) {
            let conversation = try PostgresRows.conversation(row)
            locked[conversation.id] = LockedRow(conversation: conversation, rank: try PostgresRows.optionalInt(row, "queue_rank"))
        }
        return locked
    }

    /// The events already stored under the batch's client message ids, as their JSON. Read after the
    /// locks, so a resend committed by another node while this batch waited is seen.
    private func storedMessages(_ units: [CommitUnit], on connection: PostgresConnection) async throws -> [MessageKey: String] {
        var wanted = Set<MessageKey>()
        for unit in units {
            if let clientMessageID = ConversationLifecycle.reads(for: unit.change).clientMessageID {
                wanted.insert(MessageKey(conversation: unit.change.conversationID, clientMessageID: clientMessageID))
            }
        }
        guard !wanted.isEmpty else { return [:] }
        let conversations = Set(wanted.map(\.conversation.rawValue)).sorted()
        let clientMessageIDs = Set(wanted.map(\.clientMessageID)).sorted()
        var stored: [MessageKey: String] = [:]
        for row in try await rows(
            """
            SELECT conversation_id, client_message_id, body FROM events
            WHERE conversation_id = ANY(\(conversations)) AND client_message_id = ANY(\(clientMessageIDs))
            """, on: connection) {
            let key = MessageKey(
                conversation: ConversationID(rawValue: try PostgresRows.string(row, "conversation_id")),
                clientMessageID: try PostgresRows.string(row, "client_message_id"))
            if wanted.contains(key) { stored[key] = try PostgresRows.string(row, "body") }
        }
        return stored
    }
}

extension CommitReads {
    /// True when the conversation's row and the idempotency lookup are all a change reads (a
    /// message, a requeue): the group commit answers those from the rows it locked.
    var needsOnlyTheRow: Bool {
        queues.isEmpty && visitor == nil && agentLoad == nil && readMarker == nil && !assignedAgentName
    }
}
