import Foundation
import ParleyCore
import ParleyTestSupport
import Synchronization

/// Frames received by a test socket, kept until a test takes them. `take(where:)` removes the
/// oldest matching frame and leaves the others for later checks; waiting never cancels the source.
final class FrameBuffer: Sendable {
    private struct State {
        var frames: [ServerFrame] = []
        var version: UInt64 = 0
        var isFinished = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    func push(_ frame: ServerFrame) {
        let waiters = state.withLock { state in
            state.frames.append(frame)
            state.version += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func finish() {
        let waiters = state.withLock { state in
            state.isFinished = true
            state.version += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// True once the source ended.
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Every frame received and not yet taken.
    var pending: [ServerFrame] { state.withLock { $0.frames } }

    /// Removes and returns the oldest frame that matches, waiting up to `timeout` for one.
    func take(timeout: Duration, where matches: (ServerFrame) -> Bool) async throws -> ServerFrame {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (found, version, finished): (ServerFrame?, UInt64, Bool) = state.withLock { state in
                if let index = state.frames.firstIndex(where: matches) {
                    return (state.frames.remove(at: index), state.version, state.isFinished)
                }
                return (nil, state.version, state.isFinished)
            }
            if let found { return found }
            if finished { throw TestFailure("the socket closed before a matching frame arrived") }
            if ContinuousClock.now >= deadline { throw TestFailure("no matching frame within \(timeout)") }
            await waitForChange(after: version, until: deadline)
        }
    }

    private func waitForChange(after version: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.version != version { return true }
                state.waiters[id] = continuation
                return false
            }
            if resumeNow {
                continuation.resume()
                return
            }
            Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume()
            }
        }
    }
}
