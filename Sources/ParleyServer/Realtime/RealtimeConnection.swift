import Foundation
import NIOCore
import ParleyCore
import ParleyStore

/// One open `/v1/realtime` socket as the hub sees it: a bounded queue of things to send
/// (``RealtimeOutbox``), drained by the socket's ``RealtimeWriter`` while it holds something.
///
/// The hub never waits for a socket: it puts items into this queue and moves on. When the queue is
/// full the reader is too slow, and the connection is cut off at once so that nobody else slows down.
final class RealtimeConnection: Sendable, Hashable {
    /// What the connection's writer takes from the queue, in order.
    enum Item: Sendable {
        /// A frame to send as it is.
        case frame(ServerFrame)
        /// A frame already encoded (once, for every socket that sends it).
        case text(String)
        /// Stored events of a conversation; the writer sends those its subscription has not seen.
        case events(ConversationID, [OutgoingEvent])
        /// Start a subscription after a seq (the writer replays from the store, then goes live).
        case subscribe(ClientFrame.Subscribe)
        /// End a subscription.
        case unsubscribe(ConversationID)
        /// Send whatever the store holds past the subscription's cursor (notices may have been missed).
        case catchUp(ConversationID)
    }

    private struct State: Sendable {
        var outbox: RealtimeOutbox<Item>
        /// The reader's end, waiting for the last drain to send what was queued.
        var drained: CheckedContinuation<Void, Never>?
    }

    let id: UInt64
    let caller: Caller
    private let state: Locked<State>
    private let writer: RealtimeWriter

    init(id: UInt64, caller: Caller, bufferLimit: Int, writer: RealtimeWriter) {
        self.id = id
        self.caller = caller
        self.writer = writer
        state = Locked(State(outbox: RealtimeOutbox(limit: bufferLimit)))
    }

    /// Queues an item; cuts the connection off when the queue is full.
    func enqueue(_ item: Item) {
        run(state.withLock { $0.outbox.enqueue(item) })
    }

    /// True when the connection was cut off for falling behind.
    var didOverflow: Bool { state.withLock { $0.outbox.didOverflow } }

    /// Takes no more items; the writer finishes what is queued, then stops.
    func finish() {
        state.withLock { $0.outbox.finish() }
    }

    /// Returns once the writer has sent what was queued before ``finish()`` (at once when idle).
    func waitUntilDrained() async {
        await withCheckedContinuation { continuation in
            let waits = state.withLock { state in
                guard state.outbox.isDraining else { return false }
                state.drained = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    /// The caller's right to this connection ended (logout, password change, disabled, expired):
    /// the client is told why, then the socket closes with 1008.
    func revoke(reason: String) {
        let notice = Item.frame(.error(.init(ref: nil, code: "unauthorized", message: reason)))
        run(state.withLock { $0.outbox.revoke(reason: reason, notice: notice) })
    }

    /// Why the connection was revoked, if it was.
    var revocationReason: String? { state.withLock { $0.outbox.revocationReason } }

    /// Closes the connection at once, without a close handshake (the writer failed).
    func abort() {
        state.withLock { $0.outbox.abort() }
        writer.channel.close(promise: nil)
    }

    /// The writer takes everything queued; when the queue can send nothing more, the reader's end
    /// waiting for it goes on.
    func take() -> RealtimeOutbox<Item>.TakeAction {
        var drained: CheckedContinuation<Void, Never>?
        let action = state.withLock { state -> RealtimeOutbox<Item>.TakeAction in
            let action = state.outbox.take()
            if state.outbox.phase == .closed {
                drained = state.drained
                state.drained = nil
            }
            return action
        }
        drained?.resume()
        return action
    }

    private func run(_ action: RealtimeOutbox<Item>.EnqueueAction) {
        switch action {
        case .none: break
        case .startDrain: writer.startDrain(self)
        // The writer may be waiting for a reader that does not read: closing the channel ends it.
        case .closeChannel: writer.channel.close(promise: nil)
        }
    }

    static func == (lhs: RealtimeConnection, rhs: RealtimeConnection) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// A stored event with its `event` frame, encoded once per commit and shared by every subscriber.
struct OutgoingEvent: Sendable {
    let seq: Int64
    let frame: String

    /// The `event` frames of a commit, from the JSON the store wrote when it has it.
    static func frames(of commit: ConversationCommit) throws -> [OutgoingEvent] {
        try commit.events.indices.map { index in
            let event = commit.events[index]
            let json = try commit.encodedEvents?[index] ?? String(decoding: ParleyJSON.encode(event), as: UTF8.self)
            return OutgoingEvent(seq: event.seq, frame: FrameText.event(encodedEvent: json))
        }
    }
}
