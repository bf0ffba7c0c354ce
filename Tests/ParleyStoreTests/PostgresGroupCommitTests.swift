import Foundation
import ParleyCore
import ParleyStore
@testable import ParleyStorePostgres
import PostgresNIO
import ParleyTestSupport
import Testing

private let groupCommitDatabaseURL = ProcessInfo.processInfo.environment["PARLEY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

/// PostgreSQL's group commit answers a batch exactly as the same changes answer one by one, and a
/// failing statement in a batch costs only the change that caused it.
@Suite("PostgreSQL group commit", .enabled(if: groupCommitDatabaseURL != nil, "set PARLEY_TEST_DATABASE_URL"))
struct PostgresGroupCommitTests {
    static let url = groupCommitDatabaseURL

    /// Opens a store on a fresh database, runs `body`, closes and drops it.
    static func withStore(_ body: (PostgresStore, Fixture) async throws -> Void) async throws {
        let (configuration, drop) = try await PostgresAdmin.freshDatabase(url: try #require(url))
        let store = try await PostgresStore(configuration: configuration)
        do {
            try await body(store, try await Fixture.make(store))
        } catch {
            try? await store.close()
            await drop()
            throw error
        }
        try await store.close()
        await drop()
    }

    /// Two assigned conversations, and a batch of changes that touches every path of the group commit:
    /// plain messages, a duplicate and a changed resend within the batch, refusals, changes that read
    /// more than the row (end, read marker, open), a reopen, a requeue, a message into a conversation
    /// opened earlier in the same batch, and an unknown conversation.
    static func scenario(_ fixture: Fixture) async throws -> [ConversationChange] {
        let a = try await fixture.open().conversation.id
        try await fixture.assign(a)
        let b = try await fixture.open(by: fixture.otherVisitor).conversation.id
        try await fixture.assign(b)
        let c = ConversationID.generate()
        let clock = fixture.clock, app = fixture.app.id
        func post(_ id: ConversationID, _ author: Participant, _ text: String, _ clientID: String) -> ConversationChange {
            .postMessage(.init(conversationID: id, appID: app, author: author, clientMessageID: clientID, text: text, reopenRank: 50, at: clock.next()))
        }
        return [
            post(a, fixture.visitorParticipant, "one", "c1"),
            post(a, fixture.visitorParticipant, "one", "c1"),
            post(a, fixture.visitorParticipant, "changed", "c1"),
            post(a, fixture.otherAgentParticipant, "nope", "c2"),
            post(b, fixture.agentParticipant, "hi", "c3"),
            .end(.init(conversationID: b, appID: app, by: fixture.otherVisitorParticipant, at: clock.next())),
            post(b, fixture.otherVisitorParticipant, "back again", "c4"),
            .markRead(.init(conversationID: a, appID: app, by: fixture.visitorParticipant, seq: 4, at: clock.next())),
            post(a, fixture.agentParticipant, "reply", "c5"),
            .requeue(.init(conversationID: a, appID: app, agent: fixture.agentParticipant, queueRank: 7, at: clock.next())),
            post(ConversationID.generate(), fixture.visitorParticipant, "lost", "c6"),
            .open(.init(id: c, appID: app, queueID: fixture.queue.id, visitorID: fixture.visitor.id, visitorName: fixture.visitor.name,
                        subject: "New", attributes: [:], queueRank: 9, at: clock.next())),
            post(c, fixture.visitorParticipant, "first words", "c7"),
            post(c, fixture.visitorParticipant, "first words", "c7"),
            post(a, fixture.visitorParticipant, "one", "c1"),
        ]
    }

    /// What a change answered, without ids and times: the same on two databases.
    static func outcome(_ result: Result<ConversationCommit, any Error>) -> String {
        switch result {
        case .success(let commit):
            "\(commit.isDuplicate ? "duplicate " : "")\(commit.conversation.state.rawValue) rank \(commit.queueRank.map(String.init) ?? "-") "
                + commit.events.map(\.brief).joined(separator: "; ")
        case .failure(let error as StoreError):
            "refused: " + (StoreErrorKind.allCases.first { $0.matches(error) }?.rawValue ?? "\(error)")
        case .failure(let error):
            "failed: \(error)"
        }
    }

    @Test func aBatch_answersAndStoresWhatTheSameChangesDoOneByOne() async throws {
        var alone: (outcomes: [String], stored: [String])?
        try await Self.withStore { store, fixture in
            let changes = try await Self.scenario(fixture)
            var outcomes: [String] = []
            for change in changes {
                outcomes.append(Self.outcome(await Self.result { try await store.commitAlone(.init(change: change, effects: NoCommitEffects())) }))
            }
            alone = (outcomes.map { Self.withoutIDs($0, fixture) }, try await Self.storedEvents(of: changes, fixture))
        }
        try await Self.withStore { store, fixture in
            let changes = try await Self.scenario(fixture)
            let results = try await store.runCommitBatch(changes.map { .init(change: $0, effects: NoCommitEffects()) })
            let batched = (results.map { Self.withoutIDs(Self.outcome($0), fixture) }, try await Self.storedEvents(of: changes, fixture))
            let expected = try #require(alone)
            #expect(batched.0 == expected.outcomes)
            #expect(batched.1 == expected.stored)
            #expect(batched.0.contains { $0.hasPrefix("duplicate") } && batched.0.contains("refused: idempotencyConflict")
                    && batched.0.contains("refused: invalidState") && batched.0.contains("refused: notFound"), "every path was taken")
        }
    }

    @Test func aFailingStatement_failsOnlyItsChange_theOthersCommit() async throws {
        try await Self.withStore { store, fixture in
            let a = try await fixture.open().conversation.id
            let b = try await fixture.open(by: fixture.otherVisitor).conversation.id
            // A row at a's next seq that the conversation does not know of: a's next insert collides.
            try await store.client.query(
                """
                INSERT INTO events (conversation_id, seq, type, author_role, author_id, client_message_id, body, created_at)
                VALUES (\(a.rawValue), 2, 'message', 'system', NULL, NULL, '{}', 0)
                """, logger: store.logger)
            let clock = fixture.clock, app = fixture.app.id
            let results = try await store.runCommitBatch([
                .init(change: .postMessage(.init(conversationID: b, appID: app, author: fixture.otherVisitorParticipant,
                                                 clientMessageID: "b1", text: "fine", reopenRank: 50, at: clock.next())), effects: NoCommitEffects()),
                .init(change: .postMessage(.init(conversationID: a, appID: app, author: fixture.visitorParticipant,
                                                 clientMessageID: "a1", text: "collides", reopenRank: 50, at: clock.next())), effects: NoCommitEffects()),
                .init(change: .postMessage(.init(conversationID: b, appID: app, author: fixture.otherVisitorParticipant,
                                                 clientMessageID: "b2", text: "also fine", reopenRank: 50, at: clock.next())), effects: NoCommitEffects()),
            ])
            #expect(results.map { (try? $0.get())?.events.map(\.seq) } == [[2], nil, [3]])
            #expect(try await fixture.allEvents(b).compactMap(\.message?.text) == ["fine", "also fine"])
            #expect(try await fixture.stored(a).lastSeq == 1, "the failed change left its conversation as it was")
        }
    }

    /// The fixture's agents by name: their ids differ from one database to the other.
    static func withoutIDs(_ line: String, _ fixture: Fixture) -> String {
        line.replacingOccurrences(of: fixture.agent.id.rawValue, with: "ada").replacingOccurrences(of: fixture.otherAgent.id.rawValue, with: "bob")
    }

    static func result(_ body: () async throws -> ConversationCommit) async -> Result<ConversationCommit, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Every stored event of the scenario's conversations, in order, without ids and times.
    static func storedEvents(of changes: [ConversationChange], _ fixture: Fixture) async throws -> [String] {
        var seen = Set<ConversationID>()
        var lines: [String] = []
        for id in changes.map(\.conversationID) where seen.insert(id).inserted {
            lines += try await fixture.allEvents(id).map { withoutIDs($0.brief, fixture) }
        }
        return lines
    }
}
