import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Time

/// Hands out whole-second dates that strictly increase, so stored millisecond timestamps round-trip
/// exactly and "newest first" orderings are well defined.
final class TestClock: Sendable {
    private let seconds = Locked<Int64>(1_800_000_000)  // 2027-01-15, whole seconds

    /// The latest moment handed out (without moving the clock).
    func now() -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds.withLock { $0 }))
    }

    /// The next moment, one second after the previous one.
    func next() -> Date {
        let value = seconds.withLock { seconds in
            seconds += 1
            return seconds
        }
        return Date(timeIntervalSince1970: TimeInterval(value))
    }
}

/// A thread-safe counter for concurrent checks.
final class Counter: Sendable {
    private let count = Locked<Int>(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

// MARK: - Errors

/// The kinds of ``StoreError`` a check expects.
enum StoreErrorKind: String, Sendable, CaseIterable {
    case notFound, idempotencyConflict, invalidState, duplicate, atCapacity, invalidInput

    func matches(_ error: StoreError) -> Bool {
        switch self {
        case .notFound: error.isNotFound
        case .idempotencyConflict: error.isIdempotencyConflict
        case .invalidState: error.isInvalidState
        case .duplicate: error.isDuplicate
        case .atCapacity: error.isAtCapacity
        case .invalidInput: error.isInvalidInput
        }
    }
}

/// Records an issue unless `body` throws a ``StoreError`` of the given kind.
func expectStoreError<T>(
    _ kind: StoreErrorKind, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        let value = try await body()
        Issue.record("expected StoreError.\(kind.rawValue), but it succeeded with \(value). \(comment?.rawValue ?? "")",
                     sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(kind.matches(error), "expected StoreError.\(kind.rawValue), got \(error). \(comment?.rawValue ?? "")",
                sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected StoreError.\(kind.rawValue), got \(type(of: error)): \(error). \(comment?.rawValue ?? "")",
                     sourceLocation: sourceLocation)
    }
}

/// Same as ``expectStoreError(_:_:sourceLocation:_:)``, for the pure, synchronous lifecycle.
func expectPlanError(
    _ kind: StoreErrorKind, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> ConversationLifecycle.Plan
) {
    do {
        let plan = try body()
        Issue.record("expected StoreError.\(kind.rawValue), but planned \(plan.events.map { $0.body.brief }). \(comment?.rawValue ?? "")",
                     sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(kind.matches(error), "expected StoreError.\(kind.rawValue), got \(error). \(comment?.rawValue ?? "")",
                sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected StoreError.\(kind.rawValue), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
}

// MARK: - Readable events

extension EventBody {
    /// A one-line summary that names the fields the lifecycle rules decide.
    var brief: String {
        switch self {
        case .message(let message):
            "message \(message.clientMessageID) \(message.text)"
        case .participantJoined(let joined):
            "participant_joined \(joined.participant.role.rawValue) \(joined.participant.id ?? "-")"
        case .participantLeft(let left):
            "participant_left \(left.participant.role.rawValue) \(left.participant.id ?? "-") \(left.reason.rawValue)"
        case .stateChanged(let change):
            "state_changed \(change.from?.rawValue ?? "none")->\(change.to.rawValue) \(change.reason.rawValue)"
                + (change.agentID.map { " \($0.rawValue)" } ?? "") + (change.queueID.map { " \($0.rawValue)" } ?? "")
        case .read(let marker):
            "read \(marker.readSeq)"
        case .unknown(let type):
            "unknown \(type)"
        case .pagePushed(let page):
            "page_pushed \(page.clientMessageID) \(page.url) \(page.title)"
        case .callback(let change):
            "callback \(change.action.rawValue) \(change.callback.status.rawValue)" + (change.callback.agentID.map { " \($0.rawValue)" } ?? "")
        }
    }
}

extension ConversationEvent {
    /// `"<seq> <author role> <body summary>"`.
    var brief: String { "\(seq) \(author.role.rawValue) \(body.brief)" }
}

// MARK: - A populated store

/// Two apps, their queues, agents and visitors, and short-hands for conversation changes.
///
/// `app` holds the conversations; `otherApp` exists to prove that nothing leaks across apps.
struct Fixture: Sendable {
    let store: any ParleyStore
    let clock: TestClock
    let app: App
    let otherApp: App
    let queue: Queue
    let secondQueue: Queue
    let otherAppQueue: Queue
    /// The agent conversations get assigned to.
    let agent: Agent
    /// An agent of the same app who is never assigned.
    let otherAgent: Agent
    let visitor: Visitor
    /// Another visitor of the same app.
    let otherVisitor: Visitor

    static func make(_ store: any ParleyStore) async throws -> Fixture {
        let clock = TestClock()
        let app = App(id: .generate(), name: "Acme", createdAt: clock.next())
        let otherApp = App(id: .generate(), name: "Globex", createdAt: clock.next())
        try await store.insertApp(app, secretKey: "sk_acme")
        try await store.insertApp(otherApp, secretKey: "sk_globex")
        let queue = Queue(id: .generate(at: clock.now()), appID: app.id, name: "Support", createdAt: clock.next())
        let secondQueue = Queue(id: .generate(at: clock.now()), appID: app.id, name: "Billing", createdAt: clock.next())
        let otherAppQueue = Queue(id: .generate(at: clock.now()), appID: otherApp.id, name: "Support", createdAt: clock.next())
        for queue in [queue, secondQueue, otherAppQueue] { try await store.insertQueue(queue) }
        let unique = UUID().uuidString.prefix(8).lowercased()
        let agent = Agent(id: .generate(), appID: app.id, name: "Ada", email: "ada-\(unique)@acme.test", role: .agent,
                          queueIDs: [queue.id], capacity: 3, availability: .online, isDisabled: false, createdAt: clock.next())
        let otherAgent = Agent(id: .generate(), appID: app.id, name: "Bob", email: "bob-\(unique)@acme.test", role: .agent,
                               queueIDs: [queue.id], capacity: 3, availability: .online, isDisabled: false, createdAt: clock.next())
        try await store.insertAgent(agent, passwordHash: "hash-ada")
        try await store.insertAgent(otherAgent, passwordHash: "hash-bob")
        let visitor = try await store.upsertVisitor(app: app.id, deviceID: "device-vera", profile: VisitorProfile(name: "Vera"), at: clock.next())
        let otherVisitor = try await store.upsertVisitor(app: app.id, deviceID: "device-otto", profile: VisitorProfile(name: "Otto"), at: clock.next())
        return Fixture(store: store, clock: clock, app: app, otherApp: otherApp, queue: queue, secondQueue: secondQueue,
                       otherAppQueue: otherAppQueue, agent: agent, otherAgent: otherAgent, visitor: visitor, otherVisitor: otherVisitor)
    }

    var visitorParticipant: Participant { .visitor(visitor.id, name: visitor.name) }
    var otherVisitorParticipant: Participant { .visitor(otherVisitor.id, name: otherVisitor.name) }
    var agentParticipant: Participant { .agent(agent.id, name: agent.name) }
    var otherAgentParticipant: Participant { .agent(otherAgent.id, name: otherAgent.name) }

    // MARK: Changes

    /// Opens a conversation for `visitor` (default: ``visitor``) in ``queue``.
    @discardableResult
    func open(by visitor: Visitor? = nil, queue: Queue? = nil, rank: Int64 = 100, subject: String? = "Help") async throws -> ConversationCommit {
        let visitor = visitor ?? self.visitor
        return try await store.commit(.open(.init(
            id: .generate(), appID: app.id, queueID: (queue ?? self.queue).id, visitorID: visitor.id, visitorName: visitor.name,
            subject: subject, attributes: ["plan": "pro"], queueRank: rank, at: clock.next())))
    }

    @discardableResult
    func post(_ conversation: ConversationID, by author: Participant, text: String, clientID: String = UUID().uuidString,
              reopenRank: Int64 = 50, app: AppID? = nil) async throws -> ConversationCommit {
        try await store.commit(.postMessage(.init(
            conversationID: conversation, appID: app ?? self.app.id, author: author, clientMessageID: clientID, text: text,
            reopenRank: reopenRank, at: clock.next())))
    }

    @discardableResult
    func assign(_ conversation: ConversationID, to agent: Participant? = nil, app: AppID? = nil) async throws -> ConversationCommit {
        try await store.commit(.assign(.init(conversationID: conversation, appID: app ?? self.app.id,
                                             agent: agent ?? agentParticipant, at: clock.next())))
    }

    @discardableResult
    func requeue(_ conversation: ConversationID, agent: Participant? = nil, rank: Int64, app: AppID? = nil) async throws -> ConversationCommit {
        try await store.commit(.requeue(.init(conversationID: conversation, appID: app ?? self.app.id,
                                              agent: agent ?? agentParticipant, queueRank: rank, at: clock.next())))
    }

    @discardableResult
    func transfer(_ conversation: ConversationID, by: Participant? = nil, byAdmin: Bool = false,
                  to target: ConversationChange.Transfer.Target, app: AppID? = nil) async throws -> ConversationCommit {
        try await store.commit(.transfer(.init(conversationID: conversation, appID: app ?? self.app.id, by: by ?? agentParticipant,
                                               byAdmin: byAdmin, target: target, at: clock.next())))
    }

    @discardableResult
    func end(_ conversation: ConversationID, by: Participant, app: AppID? = nil) async throws -> ConversationCommit {
        try await store.commit(.end(.init(conversationID: conversation, appID: app ?? self.app.id, by: by, at: clock.next())))
    }

    @discardableResult
    func markRead(_ conversation: ConversationID, by: Participant, seq: Int64, app: AppID? = nil) async throws -> ConversationCommit {
        try await store.commit(.markRead(.init(conversationID: conversation, appID: app ?? self.app.id, by: by, seq: seq, at: clock.next())))
    }

    // MARK: Reads

    /// Every stored event of a conversation of ``app``, oldest first.
    func allEvents(_ conversation: ConversationID) async throws -> [ConversationEvent] {
        try await store.events(conversation, app: app.id, afterSeq: 0, limit: 100_000)
    }

    /// The conversation of ``app`` as stored; fails the test when it is missing.
    func stored(_ conversation: ConversationID, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Conversation {
        try #require(await store.conversation(conversation, app: app.id), sourceLocation: sourceLocation)
    }
}
