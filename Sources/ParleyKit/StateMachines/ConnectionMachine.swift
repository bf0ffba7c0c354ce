import Foundation

/// The state of a client's realtime connection, as apps see it.
public enum ConnectionState: Sendable, Hashable {
    /// Opening the socket (attempt 1, 2, …).
    case connecting
    /// Open and caught up with the server.
    case connected
    /// Lost; the next attempt starts after `delay`.
    case waitingToReconnect(delay: Duration)
    /// Stopped by the app.
    case stopped
    /// Given up: the error is fatal (the credentials were refused, say).
    case failed(ParleyError)
}

/// The connection's life as a pure state machine: events in, actions out, no sockets or clocks.
///
///     stopped ──start──▶ connecting ──opened──▶ connected
///        ▲                 │   ▲                    │
///        │            lost │   │ timer / reconnectNow │ lost
///        │                 ▼   │                    ▼
///        └──stop── waitingToReconnect ◀─────────────┘      fatal error ──▶ failed
public struct ConnectionMachine: Sendable {
    /// What the I/O layer must do.
    public enum Action: Sendable, Hashable {
        /// Open the socket.
        case connect
        /// Call ``retryTimerFired()`` after the delay.
        case scheduleRetry(Duration)
        /// Cancel a scheduled retry.
        case cancelRetry
        /// Close the open socket.
        case closeSocket
        /// Tell observers the state changed.
        case publish(ConnectionState)
    }

    public private(set) var state: ConnectionState = .stopped
    /// Failed attempts since the last successful connection.
    public private(set) var attempt = 0
    let policy: ReconnectPolicy

    /// A stopped machine that will back off by `policy`.
    public init(policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// The app started the client.
    public mutating func start() -> [Action] {
        switch state {
        case .stopped, .failed:
            attempt = 0
            return transition(to: .connecting) + [.connect]
        default:
            return []
        }
    }

    /// The socket opened and the server said `ready`.
    public mutating func opened() -> [Action] {
        guard state == .connecting else { return [.closeSocket] }
        attempt = 0
        return transition(to: .connected)
    }

    /// Connecting failed, or the open socket was lost.
    /// - Parameter random: a number in [−1, 1] for the jitter (injected for tests).
    public mutating func lost(_ error: ParleyError, random: Double) -> [Action] {
        switch state {
        case .connecting, .connected:
            if error.isFatal { return transition(to: .failed(error)) }
            attempt += 1
            let delay = policy.delay(attempt: attempt, random: random)
            return transition(to: .waitingToReconnect(delay: delay)) + [.scheduleRetry(delay)]
        default:
            return []
        }
    }

    /// The retry delay passed.
    public mutating func retryTimerFired() -> [Action] {
        guard case .waitingToReconnect = state else { return [] }
        return transition(to: .connecting) + [.connect]
    }

    /// The app came to the foreground or regained the network: try at once.
    public mutating func reconnectNow() -> [Action] {
        guard case .waitingToReconnect = state else { return [] }
        return [.cancelRetry] + transition(to: .connecting) + [.connect]
    }

    /// The app stopped the client.
    public mutating func stop() -> [Action] {
        switch state {
        case .stopped: return []
        case .waitingToReconnect: return [.cancelRetry] + transition(to: .stopped)
        case .connecting, .connected: return [.closeSocket] + transition(to: .stopped)
        case .failed: return transition(to: .stopped)
        }
    }

    private mutating func transition(to new: ConnectionState) -> [Action] {
        state = new
        return [.publish(new)]
    }
}
