import Foundation

/// The life of a callback request as a pure state machine: every change the server makes goes
/// through ``apply(_:to:)``, which either returns the next state or refuses with the reason, so the
/// rules live in one place and are tested without a server.
///
/// ```
///            agent ready                 confirm
///  waiting ─────────────▶ offered ───────────────▶ connecting ──outcome──▶ ended(completed)
///    ▲  ▲                  │  │  │                      │
///    │  └── expire(requeue)┘  │  └ snooze ─▶ scheduled ◀┘ reschedule
///    │                        │               │
///    └───────── due ──────────┼───────────────┘
///         cancel (any but ended) ─▶ ended(cancelled); expire(end) ─▶ ended(expired)
/// ```
///
/// A request keeps its `rank` (its place in the queue) through a snooze and a requeue: it comes
/// back ahead of requests made after it.
public enum CallbackMachine {
    /// Where a request stands.
    public enum State: Hashable, Sendable {
        /// In its queue, waiting for an agent.
        case waiting
        /// An agent is ready; the visitor is asked to confirm before `expiresAt`.
        case offered(agent: AgentID, expiresAt: Date)
        /// Confirmed: the agent calls, is called, or chats.
        case connecting(agent: AgentID)
        /// Out of the queue until `until` (a snooze, a window that has not opened, a reschedule).
        case scheduled(until: Date)
        case ended(CallbackEnd)

        /// A short name, for errors and the wire.
        public var name: String {
            switch self {
            case .waiting: "waiting"
            case .offered: "offered"
            case .connecting: "connecting"
            case .scheduled: "scheduled"
            case .ended: "ended"
            }
        }
    }

    /// What happens to a request.
    public enum Input: Hashable, Sendable {
        /// Routing found an agent with room (or one took it in the desk).
        case agentReady(AgentID, confirmWithin: TimeInterval, at: Date)
        /// The visitor said yes.
        case confirm(at: Date)
        /// "Try again in 5 minutes".
        case snooze(for: TimeInterval, at: Date)
        /// "Cancel, my problem has been solved", or the visitor's cancel at any time.
        case cancel
        /// The confirmation's time ran out (the server's timer; ignored before `expiresAt`).
        case expire(policy: CallbackExpiry, at: Date)
        /// A scheduled request's time came.
        case due(at: Date)
        /// The agent recorded how it went; `retryAt` puts it back for later (no answer: try again).
        case outcome(CallbackOutcome, by: AgentID, retryAt: Date?)
    }

    /// Why an input does not apply: a clear error, and nothing changes.
    public struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The state after `input`, or a ``Refusal``.
    public static func apply(_ input: Input, to state: State) throws(Refusal) -> State {
        switch (state, input) {
        case (.ended, _):
            throw Refusal("the callback request has ended")
        case (_, .cancel):
            return .ended(.cancelled)

        case (.waiting, .agentReady(let agent, let within, let now)):
            return .offered(agent: agent, expiresAt: now.addingTimeInterval(max(1, within)))

        case (.offered(let agent, let expiresAt), .confirm(let now)):
            guard now < expiresAt else { throw Refusal("the offer expired; the request is waiting for the next agent") }
            return .connecting(agent: agent)
        case (.offered, .snooze(let duration, let now)):
            guard duration > 0 else { throw Refusal("a snooze needs a positive duration") }
            return .scheduled(until: now.addingTimeInterval(duration))
        case (.offered(_, let expiresAt), .expire(let policy, let now)):
            guard now >= expiresAt else { return state }
            return policy == .requeue ? .waiting : .ended(.expired)

        case (.scheduled(let until), .due(let now)):
            return now >= until ? .waiting : state

        case (.connecting(let agent), .outcome(let outcome, let by, let retryAt)):
            guard by == agent else { throw Refusal("only the agent working on it records its outcome") }
            if let retryAt {
                guard outcome != .done, outcome != .connected else { throw Refusal("a request that was \(outcome.rawValue) is not retried") }
                return .scheduled(until: retryAt)
            }
            return .ended(.completed)

        // Timers are late sometimes: a due or an expiry that no longer applies changes nothing.
        case (_, .expire), (_, .due):
            return state

        default:
            throw Refusal("cannot \(Self.name(of: input)) a request that is \(state.name)")
        }
    }

    static func name(of input: Input) -> String {
        switch input {
        case .agentReady: "offer"
        case .confirm: "confirm"
        case .snooze: "snooze"
        case .cancel: "cancel"
        case .expire: "expire"
        case .due: "wake"
        case .outcome: "record the outcome of"
        }
    }
}
