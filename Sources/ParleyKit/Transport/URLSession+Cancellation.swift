import ParleyCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// `data(for:)` that a cancelled Swift task leaves alone on Linux.
    ///
    /// FoundationNetworking (swift-corelibs-foundation) cancels the `URLSessionTask` when the task
    /// awaiting `data(for:)` is cancelled, and that path can crash ("a task that is not in the
    /// registry") or deadlock in `URLSessionTask.cancel()`. ParleyKit cancels such tasks whenever a
    /// client stops while a request is in flight. Here the request runs in a task of its own, which
    /// cancellation does not reach: the caller gets `CancellationError` at once, and the request
    /// finishes (or times out) by itself, its answer dropped. Elsewhere it is `data(for:)`.
    func dataIgnoringCancellation(for request: URLRequest) async throws -> (Data, URLResponse) {
        #if canImport(FoundationNetworking)
        let waiter = ResultWaiter<(Data, URLResponse)>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiter.wait(with: continuation) else { return }
                Task {
                    do {
                        waiter.finish(.success(try await self.data(for: request)))
                    } catch {
                        waiter.finish(.failure(error))
                    }
                }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
        #else
        return try await data(for: request)
        #endif
    }
}

/// Hands one result to a continuation exactly once, whichever comes first: the result, or a
/// cancellation (possibly before the continuation exists).
private final class ResultWaiter<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Value, any Error>)
        case finished
    }

    private let state = Locked(State.idle)

    /// Stores the continuation; false (and the continuation resumed) when already finished.
    func wait(with continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let isFinished = state.withLock { state -> Bool in
            guard case .idle = state else { return true }
            state = .waiting(continuation)
            return false
        }
        if isFinished { continuation.resume(throwing: CancellationError()) }
        return !isFinished
    }

    /// Resumes the waiting continuation with a result, once; later results are dropped.
    func finish(_ result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .idle:
                state = .finished
                return nil
            case .waiting(let continuation):
                state = .finished
                return continuation
            case .finished:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
