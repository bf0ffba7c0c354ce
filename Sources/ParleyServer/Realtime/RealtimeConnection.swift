import Foundation
import NIOCore
import ParleyCore
import ParleyStore
import Synchronization

/// One open `/v1/realtime` socket as the hub sees it: a bounded queue of things to send.
///
/// The hub never waits for a socket: it puts items into this queue and moves on. When the queue is
/// full the reader is too slow, and the connection is cut off at once so that nobody else slows down.
final class RealtimeConnection: Sendable, Hashable {
    /// What the connection's writer task takes from the queue, in order.
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

    let id: UInt64
    let caller: Caller
    let items: AsyncStream<Item>
    private let continuation: AsyncStream<Item>.Continuation
    private let channel: (any Channel)?
    private let overflowed = Atomic<Bool>(false)
    private let revocation = Mutex<String?>(nil)

    init(id: UInt64, caller: Caller, bufferLimit: Int, channel: (any Channel)?) {
        self.id = id
        self.caller = caller
        self.channel = channel
        (items, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingOldest(bufferLimit))
    }

    /// Queues an item; cuts the connection off when the queue is full.
    func enqueue(_ item: Item) {
        if case .dropped = continuation.yield(item) {
            if !overflowed.exchange(true, ordering: .relaxed) {
                continuation.finish()
                // The writer may be stuck in a write to a reader that does not read: closing the
                // channel fails that write and ends the connection.
                channel?.close(promise: nil)
            }
        }
    }

    /// True when the connection was cut off for falling behind.
    var didOverflow: Bool { overflowed.load(ordering: .relaxed) }

    /// Ends the queue; the writer finishes what is queued, then stops.
    func finish() { continuation.finish() }

    /// The caller's right to this connection ended (logout, password change, disabled, expired):
    /// the client is told why, then the socket closes with 1008.
    func revoke(reason: String) {
        let first = revocation.withLock { current in
            if current != nil { return false }
            current = reason
            return true
        }
        guard first else { return }
        enqueue(.frame(.error(.init(ref: nil, code: "unauthorized", message: reason))))
        continuation.finish()
    }

    /// Why the connection was revoked, if it was.
    var revocationReason: String? { revocation.withLock { $0 } }

    /// Closes the connection at once, without a close handshake (the writer failed).
    func abort() {
        continuation.finish()
        channel?.close(promise: nil)
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
