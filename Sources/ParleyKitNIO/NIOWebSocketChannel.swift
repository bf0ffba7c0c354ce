import ParleyCore
import Foundation
import Logging
import NIOCore
import NIOWebSocket
import ParleyKit
@_spi(WSInternal) import WSCore

/// One WebSocket opened by ``NIOWebSocketTransport``.
///
/// A connection runs as one long call (``WebSocketConnection/run(verdict:handler:)``, the frame
/// handling of swift-websocket) that returns when the socket is closed. This class runs that call in a task of its own, forwards
/// the inbound text messages to ``incoming``, keeps the outbound writer for ``send(_:)``, and turns
/// the way the call ended into the way ``incoming`` ends.
///
/// How ``incoming`` ends:
/// - normally after ``close()``, or when the server closed with 1000 (normal closure);
/// - throwing ``ParleyError`` `.network` for any other close code (1001 ping timeout, 1008 token
///   expired or session revoked, 1009, 1011…), a connection dropped without a close frame, or an error.
///
/// Cancelling the task that iterates ``incoming`` closes the socket, as ``close()`` does, so that an
/// abandoned stream does not keep a connection open.
final class NIOWebSocketChannel: RealtimeChannel, Sendable {
    /// Where the connection is in its life. Every transition happens under ``state``'s lock.
    private enum Phase {
        /// TCP connection and upgrade in progress.
        case connecting
        /// Upgraded: messages flow; the writer is the frame handler's for this socket.
        case open(WebSocketOutboundWriter)
        /// ``close()`` or ``abandon(because:)`` was called; the connection task is ending.
        case closing
        /// The connection task has ended.
        case closed
    }

    private struct State {
        var phase: Phase = .connecting
        /// Set by ``close()`` and ``abandon(because:)``: the end is ours, not the server's, so
        /// ``incoming`` finishes normally whatever the close code.
        var endRequested = false
        /// The task running the connection; set right after it is created.
        var task: Task<Void, Never>?
        /// The outcome of the upgrade is reported once: the first of success, failure, timeout or
        /// cancellation wins.
        var upgradeReported = false
    }

    let incoming: AsyncThrowingStream<String, any Error>
    private let incomingContinuation: AsyncThrowingStream<String, any Error>.Continuation
    private let upgradeStream: AsyncStream<Result<Void, any Error>>
    private let upgradeContinuation: AsyncStream<Result<Void, any Error>>.Continuation
    private let state = Locked(State())
    private let closeTimeout: Duration
    /// Where the TLS checks leave their refusal (a key that is not pinned…), for the error.
    let verdict = TLSVerdict()

    /// The largest message accepted from the server (a reassembled fragmented message).
    static let maxMessageBytes = 4 << 20

    init(closeTimeout: Duration) {
        self.closeTimeout = closeTimeout
        (incoming, incomingContinuation) = AsyncThrowingStream.makeStream(of: String.self, throwing: (any Error).self)
        (upgradeStream, upgradeContinuation) = AsyncStream.makeStream(of: Result<Void, any Error>.self, bufferingPolicy: .bufferingOldest(1))
        incomingContinuation.onTermination = { [weak self] termination in
            // `.cancelled`: the consumer went away (its task was cancelled or the stream was dropped).
            // `.finished` is our own doing, from `finish(…)`.
            if case .cancelled = termination, let self {
                Task { await self.close() }
            }
        }
    }

    /// Starts the connection task; the returned stream yields the upgrade's outcome, once.
    func start(_ connection: WebSocketConnection) -> AsyncStream<Result<Void, any Error>> {
        let task = Task { [self] in
            do {
                let closeFrame = try await connection.run(verdict: verdict) { inbound, outbound, _ in
                    guard self.didUpgrade(outbound) else { return }  // abandoned meanwhile: close at once
                    for try await message in inbound.messages(maxSize: Self.maxMessageBytes) {
                        switch message {
                        case .text(let text):
                            self.incomingContinuation.yield(text)
                        case .binary(let buffer):
                            // parleyd sends only text; passed on as text (as URLSessionTransport does)
                            // so that the client reports it as a bad frame rather than losing it quietly.
                            self.incomingContinuation.yield(String(buffer: buffer))
                        }
                    }
                }
                didEnd(closeFrame: closeFrame, error: nil)
            } catch {
                didEnd(closeFrame: nil, error: error)
            }
        }
        let abandonedEarly = state.withLock { state in
            state.task = task
            return state.endRequested
        }
        if abandonedEarly { task.cancel() }
        return upgradeStream
    }

    // MARK: RealtimeChannel

    func send(_ text: String) async throws {
        let writer: WebSocketOutboundWriter? = state.withLock { state in
            if case .open(let writer) = state.phase { return writer }
            return nil
        }
        guard let writer else { throw ParleyError.network("the WebSocket is closed") }
        do {
            // Splits into fragments only above the frame size (1 MiB), which no valid frame reaches.
            try await writer.writeTextMessage(text)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw ParleyError.network("sending on the WebSocket failed: \(NIOWebSocketTransport.describe(error))")
        }
    }

    func close() async {
        let (writer, task): (WebSocketOutboundWriter?, Task<Void, Never>?) = state.withLock { state in
            state.endRequested = true
            switch state.phase {
            case .open(let writer):
                state.phase = .closing
                return (writer, state.task)
            case .connecting:
                state.phase = .closing
                return (nil, state.task)
            case .closing, .closed:
                return (nil, state.task)
            }
        }
        if let writer {
            // Starts the close handshake; the server answers with its close frame and the frame handler's
            // call returns. An error means the socket is already gone, which is what we want.
            try? await writer.close(.normalClosure, reason: nil)
        } else {
            task?.cancel()  // not upgraded (or already ending): nothing to hand-shake with
        }
        await waitUntilEnded(cancelAfter: closeTimeout)
    }

    // MARK: Connection task events

    /// The upgrade succeeded: keep the writer and report success. False when the channel was
    /// closed or abandoned in the meantime (then the handler returns at once, closing the socket).
    private func didUpgrade(_ outbound: WebSocketOutboundWriter) -> Bool {
        let accepted = state.withLock { state in
            guard case .connecting = state.phase, !state.endRequested else { return false }
            state.phase = .open(outbound)
            state.upgradeReported = true
            return true
        }
        if accepted {
            upgradeContinuation.yield(.success(()))
            upgradeContinuation.finish()
        }
        return accepted
    }

    /// The connection's call returned (with the server's close frame, if any) or threw.
    private func didEnd(closeFrame: WebSocketCloseFrame?, error: (any Error)?) {
        let (endRequested, wasReported) = state.withLock { state in
            state.phase = .closed
            let reported = state.upgradeReported
            state.upgradeReported = true
            return (state.endRequested, reported)
        }
        if !wasReported {
            // Never upgraded: `connect` is waiting for this.
            upgradeContinuation.yield(.failure(error ?? ParleyError.network("the connection closed before the WebSocket upgrade")))
            upgradeContinuation.finish()
        }
        if endRequested {
            incomingContinuation.finish()
        } else if let error {
            incomingContinuation.finish(throwing: ParleyError.network("the WebSocket failed: \(NIOWebSocketTransport.describe(error))"))
        } else if let closeFrame {
            if closeFrame.closeCode == .normalClosure {
                incomingContinuation.finish()
            } else {
                let reason = closeFrame.reason.map { ": \($0)" } ?? ""
                incomingContinuation.finish(throwing: ParleyError.network("the server closed the WebSocket with \(Self.number(closeFrame.closeCode))\(reason)"))
            }
        } else {
            incomingContinuation.finish(throwing: ParleyError.network("the WebSocket connection was lost"))
        }
    }

    /// Gives up on a connection whose upgrade has not succeeded yet (`connect`'s timeout): reports
    /// `error` as the upgrade's outcome and ends the connection task. Does nothing once the upgrade's
    /// outcome is known, so a timeout that fires just after a success cannot close a good socket.
    func abandon(because error: any Error) {
        let task: Task<Void, Never>?? = state.withLock { state in
            guard !state.upgradeReported else { return .none }
            state.upgradeReported = true
            state.endRequested = true
            state.phase = .closing
            return .some(state.task)
        }
        guard case .some(let task) = task else { return }
        upgradeContinuation.yield(.failure(error))
        upgradeContinuation.finish()
        task?.cancel()
    }

    /// Waits until the connection task has ended. After `limit`, cancels it (the handler then closes
    /// the socket) and waits up to `limit` again. Returns early when the calling task is cancelled.
    func waitUntilEnded(cancelAfter limit: Duration) async {
        guard let task = state.withLock({ $0.task }) else { return }
        if await Self.wait(for: task, atMost: limit) { return }
        task.cancel()
        _ = await Self.wait(for: task, atMost: limit)
    }

    /// Waits for a task to end, at most `limit`, and says whether it ended.
    private static func wait(for task: Task<Void, Never>, atMost limit: Duration) async -> Bool {
        // Awaiting `task.value` cannot be interrupted, so the waiting is done by a helper task
        // and a timer that each finish the same signal; whichever comes first wakes us.
        let (signal, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingOldest(1))
        let waiter = Task {
            await task.value
            continuation.yield(true)
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.yield(false)
        }
        var iterator = signal.makeAsyncIterator()
        let ended = await iterator.next() ?? false  // nil: the caller was cancelled
        timer.cancel()
        continuation.finish()
        _ = waiter  // ends with the connection task; it holds nothing else
        return ended
    }

    /// A close code as its number (1000, 1008…), which is what people look up.
    private static func number(_ code: WebSocketErrorCode) -> String {
        var buffer = ByteBuffer()
        buffer.write(webSocketErrorCode: code)
        return buffer.readInteger(as: UInt16.self).map(String.init) ?? "\(code)"
    }
}
