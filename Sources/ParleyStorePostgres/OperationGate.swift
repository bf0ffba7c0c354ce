import ParleyCore
import ParleyStore

/// Counts a store's operations in flight. Closing refuses new operations and waits for the running
/// ones to finish, so an operation that was started either commits or fails; none is cut in half.
final class OperationGate: Sendable {
    private struct State {
        var running = 0
        var isClosed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Counts one operation in. Throws once the gate is closed.
    func enter() throws(StoreError) {
        let refused = state.withLock { state in
            if state.isClosed { return true }
            state.running += 1
            return false
        }
        if refused { throw .invalidState("the store is closed") }
    }

    /// Counts one operation out.
    func leave() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Refuses new operations and returns once none is running.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                state.isClosed = true
                if state.running == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
