import CoreMetrics
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyStore

/// The only one to write a `/v1/realtime` socket's frames, so they leave in the order they were
/// queued. It runs on the socket's event loop, and only while its queue holds something: there is
/// no task per socket waiting for frames.
///
/// A drain takes everything queued (``RealtimeOutbox``), writes each frame and flushes once, so a
/// burst of events reaches the kernel in one `writev`. What needs the store (a subscription's
/// history, a hole in the events, a catch-up) runs in a task, which writes what it read and hands
/// the drain back to the event loop.
///
/// Exactly-once delivery per subscription: the writer keeps, per subscribed conversation, the seq
/// of the last event it sent (the cursor). A subscription is registered with the hub *before* the
/// history is read from the store, so an event committed meanwhile is either in that read or queued
/// behind it; events at or below the cursor are skipped, and a hole above it is filled from the store.
final class RealtimeWriter: Sendable {
    /// What the writer needs besides its socket.
    struct Context: Sendable {
        let store: any ConversationStore
        let routing: RoutingEngine
        let delivered: Counter
        let caller: Caller
        let epoch: String
        /// Closes the socket with 1008 and the reason (the WebSocket layer's close handshake).
        let closeForRevocation: @Sendable (String) -> Void
    }

    /// Work for a task: everything here reads the store.
    private enum StoreWork: Sendable {
        case subscribe(ClientFrame.Subscribe)
        case catchUp(ConversationID, cursor: Int64)
        /// Events arrived past a hole: fill it (up to the first event's seq), then send the events.
        case fill(ConversationID, cursor: Int64, upTo: Int64)
    }

    let channel: any Channel
    private let context: Context
    /// The cursors, touched only by the drain, which runs on the event loop (a store task hands its
    /// new cursor back to the loop).
    private let cursors: NIOLoopBoundBox<[ConversationID: Int64]>

    init(channel: any Channel, context: Context) {
        self.channel = channel
        self.context = context
        cursors = .makeBoxSendingValue([:], eventLoop: channel.eventLoop)
    }

    /// Starts a drain on the event loop (the outbox said none runs).
    func startDrain(_ connection: RealtimeConnection) {
        channel.eventLoop.execute { self.drain(connection) }
    }

    // MARK: Draining, on the event loop

    /// Writes `pending`, then whatever is queued, until the queue is empty or store work is needed.
    private func drain(_ connection: RealtimeConnection, pending: ArraySlice<RealtimeConnection.Item> = []) {
        var pending = pending
        var frames: [ByteBuffer] = []
        while true {
            while let item = pending.popFirst() {
                if let work = gather(item, into: &frames) {
                    _ = write(frames)
                    let rest = pending
                    Task { await self.run(work, then: item, rest, connection) }
                    return
                }
            }
            // A reader that does not keep up: wait until the socket took everything, while the
            // queue fills (and overflows, which closes the socket and fails the write).
            if let congested = write(frames) {
                congested.whenComplete { _ in self.drain(connection) }
                return
            }
            frames.removeAll(keepingCapacity: true)
            switch connection.take() {
            case .send(let items):
                pending = items[...]
            case .idle:
                return
            case .finished(let revocationReason):
                if let revocationReason { context.closeForRevocation(revocationReason) }
                return
            }
        }
    }

    /// Adds an item's frames to `frames`; returns the store work it needs instead, if any.
    private func gather(_ item: RealtimeConnection.Item, into frames: inout [ByteBuffer]) -> StoreWork? {
        switch item {
        case .frame(let frame):
            // Encoding a frame the server just built cannot fail; if it did, the frame is left out.
            guard let data = try? ParleyJSON.encode(frame) else { return nil }
            frames.append(channel.allocator.buffer(bytes: data))
        case .text(let text):
            frames.append(channel.allocator.buffer(string: text))
        case .events(let id, let events):
            guard var cursor = cursors.value[id] else { return nil }
            defer { cursors.value[id] = cursor }
            for event in events where event.seq > cursor {
                if event.seq > cursor + 1 { return .fill(id, cursor: cursor, upTo: event.seq - 1) }
                frames.append(channel.allocator.buffer(string: event.frame))
                context.delivered.increment()
                cursor = event.seq
            }
        case .subscribe(let subscribe):
            return .subscribe(subscribe)
        case .unsubscribe(let id):
            cursors.value[id] = nil
        case .catchUp(let id):
            guard let cursor = cursors.value[id] else { return nil }
            return .catchUp(id, cursor: cursor)
        }
        return nil
    }

    /// Writes text frames and flushes once (one `writev`). Returns a future for the last write when
    /// the socket takes no more for now (its reader is behind), nil otherwise.
    private func write(_ frames: [ByteBuffer]) -> EventLoopFuture<Void>? {
        guard let last = frames.last else { return nil }
        for frame in frames.dropLast() {
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: frame), promise: nil)
        }
        var future: EventLoopFuture<Void>?
        if channel.isWritable {
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: last), promise: nil)
        } else {
            let promise = channel.eventLoop.makePromise(of: Void.self)
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: last), promise: promise)
            future = promise.futureResult
        }
        channel.flush()
        return future
    }

    // MARK: Store work, in a task

    /// Does the store work, then hands the drain back to the event loop with the new cursor. The
    /// item that needed the work is sent again after a fill (its events past the hole).
    private func run(
        _ work: StoreWork, then item: RealtimeConnection.Item, _ pending: ArraySlice<RealtimeConnection.Item>, _ connection: RealtimeConnection
    ) async {
        do {
            let id: ConversationID
            let cursor: Int64?
            var rest = pending
            switch work {
            case .subscribe(let subscribe):
                id = subscribe.conversationID
                cursor = try await self.subscribe(subscribe)
            case .catchUp(let conversation, let after):
                id = conversation
                cursor = try await replay(conversation, after: after)
            case .fill(let conversation, let after, let upTo):
                let filled = try await replay(conversation, after: after, upTo: upTo)
                id = conversation
                cursor = filled
                // The events past the hole go next; if the store could not fill it, they are skipped
                // (the next catch-up or resubscription sends them).
                if filled == upTo { rest.insert(item, at: rest.startIndex) }
            }
            let pending = rest
            channel.eventLoop.execute {
                if let cursor { self.cursors.value[id] = cursor }
                self.drain(connection, pending: pending)
            }
        } catch {
            // A writer that cannot go on must not leave a socket that answers pings and says nothing.
            connection.abort()
            channel.eventLoop.execute { self.drain(connection) }
        }
    }

    /// Sends a subscription's reset (when needed), history and `subscribed`; returns its cursor.
    private func subscribe(_ subscribe: ClientFrame.Subscribe) async throws -> Int64? {
        let id = subscribe.conversationID
        let epoch = context.epoch
        guard let app = context.caller.appID, let conversation = try await context.store.conversation(id, app: app) else { return nil }
        var after = max(0, subscribe.afterSeq)
        // Another epoch, or a cursor beyond what the store holds (a restored backup): the
        // client's copy cannot be trusted, so say so and send everything.
        if (subscribe.epoch != nil && subscribe.epoch != epoch) || after > conversation.lastSeq {
            try await send([.reset(.init(conversationID: id, epoch: epoch))])
            after = 0
        }
        let cursor = try await replay(id, after: after)
        var frames: [ServerFrame] = [.subscribed(.init(conversationID: id, lastSeq: cursor, epoch: epoch))]
        if case .visitor = context.caller, let position = await context.routing.position(of: id) {
            frames.append(.queuePosition(.init(conversationID: id, position: position)))
        }
        try await send(frames)
        return cursor
    }

    /// Sends stored events after `after` (up to `upTo` when given) and returns the last seq sent.
    private func replay(_ id: ConversationID, after: Int64, upTo: Int64? = nil) async throws -> Int64 {
        guard let app = context.caller.appID else { return after }
        var cursor = after
        while true {
            let page = try await context.store.events(id, app: app, afterSeq: cursor, limit: Limits.maxEventPage)
            var frames: [ServerFrame] = []
            for event in page {
                if let upTo, event.seq > upTo { break }
                frames.append(.event(event))
                cursor = event.seq
            }
            try await send(frames)
            context.delivered.increment(by: Int64(frames.count))
            if page.count < Limits.maxEventPage || frames.count < page.count { return cursor }
        }
    }

    /// Writes frames and flushes once, waiting until the socket took them (a reader that does not
    /// read holds the task here until its queue overflows and the socket closes).
    private func send(_ frames: [ServerFrame]) async throws {
        guard !frames.isEmpty else { return }
        let buffers = try frames.map { try ParleyJSON.encode($0) }
        try await channel.eventLoop.flatSubmit {
            let promise = self.channel.eventLoop.makePromise(of: Void.self)
            for (index, data) in buffers.enumerated() {
                let frame = WebSocketFrame(fin: true, opcode: .text, data: self.channel.allocator.buffer(bytes: data))
                self.channel.write(frame, promise: index == buffers.count - 1 ? promise : nil)
            }
            self.channel.flush()
            return promise.futureResult
        }.get()
    }
}
