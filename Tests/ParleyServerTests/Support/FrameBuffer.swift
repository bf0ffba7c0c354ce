import Foundation
import ParleyCore
import ParleyTestSupport

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

    private let state = Locked(State())

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

    /// Removes and returns the oldest frame that matches, waiting until one arrives.
    ///
    /// The wait ends on the frame, on the socket's end, or on cancellation (a suite's time limit).
    /// `timeout` is only a last resort against a frame that never comes, so that the failure names
    /// what was pending; a passing run never gets near it.
    func take(timeout: Duration, where matches: (ServerFrame) -> Bool) async throws -> ServerFrame {
        var limit = WaitLimit(timeout)
        while true {
            let (found, version, finished): (ServerFrame?, UInt64, Bool) = state.withLock { state in
                if let index = state.frames.firstIndex(where: matches) {
                    return (state.frames.remove(at: index), state.version, state.isFinished)
                }
                return (nil, state.version, state.isFinished)
            }
            if let found { return found }
            if finished { throw TestFailure("the socket closed before a matching frame arrived; pending: \(pendingSummary)") }
            try Task.checkCancellation()
            if limit.isSpent() { throw TestFailure("no matching frame within \(limit.limit); pending: \(pendingSummary)") }
            await waitForChange(after: version, until: limit.nextLook)
        }
    }

    /// Removes and returns every frame that matches, in arrival order, without waiting.
    func takeAll(where matches: (ServerFrame) -> Bool) -> [ServerFrame] {
        state.withLock { state in
            let taken = state.frames.filter(matches)
            state.frames.removeAll(where: matches)
            return taken
        }
    }

    /// The types of the frames not yet taken, for failure messages.
    private var pendingSummary: String {
        let types = pending.map(\.type)
        return types.isEmpty ? "none" : types.joined(separator: ", ")
    }

    private func waitForChange(after version: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let wake = { @Sendable in
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
        // Each of the three wakes (frame, next look, cancellation) either finds the waiter registered,
        // or comes before it registers, which then sees the change and does not wait.
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            wake()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.version != version || Task.isCancelled || ContinuousClock.now >= deadline { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
        timer.cancel()
    }
}
