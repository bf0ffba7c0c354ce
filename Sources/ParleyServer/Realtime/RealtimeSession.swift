import CoreMetrics
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyStore

/// One `/v1/realtime` socket: a reader that handles client frames, and a writer that is the only
/// one to write to the socket, so frames leave in the order they were queued.
///
/// Exactly-once delivery per subscription: the writer keeps, per subscribed conversation, the seq
/// of the last event it sent (the cursor). A subscription is registered with the hub *before* the
/// history is read from the store, so an event committed meanwhile is either in that read or queued
/// behind it; events at or below the cursor are skipped, and a hole above it is filled from the store.
struct RealtimeSession {
    let server: ParleyServer
    let caller: Caller
    let channel: any Channel

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let connection = RealtimeConnection(
            id: server.hub.makeID(), caller: caller, bufferLimit: server.configuration.realtimeBufferLimit, channel: channel)
        // `ready` is queued before the connection can hear anything, so it is always the first frame.
        let epoch = try await server.store.epoch()
        connection.enqueue(.frame(.ready(.init(
            epoch: epoch, participant: caller.participant, heartbeatSeconds: Int(server.configuration.heartbeat.components.seconds)))))
        server.hub.register(connection)
        if case .agent(let agent) = caller { await server.routing.agentConnected(agent.agentID) }
        let metrics = server.configuration.metrics
        let gauge = if case .agent = caller { metrics.agentConnections } else { metrics.visitorConnections }
        gauge.increment()
        defer { gauge.decrement() }

        let result: Result<Void, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await writeLoop(connection, outbound: outbound, epoch: epoch)
                } catch {
                    // A writer that cannot go on must not leave a socket that answers pings and says nothing.
                    if !(error is CancellationError) {
                        server.logger.debug("realtime writer failed", metadata: ["parley.connection": "\(connection.id)", "error": "\(error)"])
                    }
                    connection.abort()
                }
            }
            // The token's end ends the socket too: a timer on the socket's event loop, not a sleeping
            // task per connection (idle connections are most of them; each task costs memory).
            let lifetime = max(0, min(caller.expiresAt.timeIntervalSince(server.configuration.clock.now()), 365 * 24 * 3600))
            let expiry = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(lifetime * 1000))) {
                connection.revoke(reason: "token expired")
            }
            defer { expiry.cancel() }
            let readResult: Result<Void, any Error>
            do {
                try await readLoop(connection, inbound: inbound)
                readResult = .success(())
            } catch {
                readResult = .failure(error)
            }
            connection.finish()
            group.cancelAll()
            await group.waitForAll()
            return readResult
        }
        server.hub.unregister(connection)
        if case .agent(let agent) = caller { await server.routing.agentDisconnected(agent.agentID) }
        if connection.didOverflow {
            server.logger.info("realtime reader too slow; disconnected", metadata: ["parley.connection": "\(connection.id)"])
        }
        // Rethrowing lets the WebSocket layer close with the right code (1009 for an oversized message).
        try result.get()
    }

    // MARK: Reading

    private func readLoop(_ connection: RealtimeConnection, inbound: WebSocketInboundStream) async throws {
        let decoder = ParleyJSON.makeDecoder()
        for try await message in inbound.messages(maxSize: Limits.maxFrameBytes) {
            guard case .text(let text) = message else {
                connection.enqueue(.frame(.error(.init(ref: nil, code: "bad_frame", message: "frames are JSON text"))))
                continue
            }
            let frame: ClientFrame
            do {
                // A plain `send` (almost every frame under load) is read without JSONDecoder.
                frame = try ClientFrame.fastSend(text) ?? decoder.decode(ClientFrame.self, from: Data(text.utf8))
            } catch let error as FrameTypeError {
                connection.enqueue(.frame(.error(.init(ref: nil, code: "unknown_frame", message: error.description))))
                continue
            } catch let error as DecodingError {
                connection.enqueue(.frame(.error(.init(ref: nil, code: "bad_frame", message: error.fieldMessage))))
                continue
            }
            await handle(frame, connection: connection)
        }
    }

    private func handle(_ frame: ClientFrame, connection: RealtimeConnection) async {
        let service = server.conversations
        var ref: String?
        let conversationID = frame.conversationID
        do {
            switch frame {
            case .subscribe(let subscribe):
                _ = try await service.visible(subscribe.conversationID, to: caller)
                server.hub.subscribe(connection, to: subscribe.conversationID)
                connection.enqueue(.subscribe(subscribe))
            case .unsubscribe(let unsubscribe):
                server.hub.unsubscribe(connection, from: unsubscribe.conversationID)
                connection.enqueue(.unsubscribe(unsubscribe.conversationID))
            case .send(let send):
                ref = send.ref
                let commit = try await service.send(send.conversationID, clientMessageID: send.clientMessageID, text: send.text, by: caller)
                if let event = commit.events.last {
                    // Built around the JSON the store wrote: the message is not encoded again.
                    if let encoded = commit.encodedEvents?.last {
                        connection.enqueue(.text(FrameText.ack(ref: send.ref, duplicate: commit.isDuplicate, encodedEvent: encoded)))
                    } else {
                        connection.enqueue(.frame(.ack(.init(ref: send.ref, duplicate: commit.isDuplicate, event: event))))
                    }
                }
            case .typing(let typing):
                try await service.typing(typing.conversationID, isTyping: typing.isTyping, by: caller, connection: connection.id)
            case .read(let read):
                ref = read.ref
                _ = try await service.markRead(read.conversationID, seq: read.seq, by: caller)
            case .ping(let ping):
                connection.enqueue(.frame(.pong(.init(ref: ping.ref))))
            }
        } catch {
            let apiError = APIError.from(error)
            if apiError.isServerFault {
                server.logger.error("realtime request failed", metadata: ["frame": "\(frame.type)", "error": "\(error)"])
            }
            connection.enqueue(.frame(.error(.init(ref: ref, conversationID: conversationID, code: apiError.code, message: apiError.message))))
        }
    }

    // MARK: Writing

    private func writeLoop(_ connection: RealtimeConnection, outbound: WebSocketOutboundWriter, epoch: String) async throws {
        let encoder = ParleyJSON.makeEncoder()
        let delivered = server.configuration.metrics.eventsDelivered
        func write(_ frame: ServerFrame) async throws {
            try await outbound.write(.text(String(decoding: try encoder.encode(frame), as: UTF8.self)))
        }
        var cursors: [ConversationID: Int64] = [:]

        /// Sends stored events after `after` (up to `upTo` when given) and returns the last seq sent.
        func replay(_ id: ConversationID, app: AppID, after: Int64, upTo: Int64? = nil) async throws -> Int64 {
            var cursor = after
            while true {
                let page = try await server.store.events(id, app: app, afterSeq: cursor, limit: Limits.maxEventPage)
                for event in page {
                    if let upTo, event.seq > upTo { return cursor }
                    try await write(.event(event))
                    delivered.increment()
                    cursor = event.seq
                }
                if page.count < Limits.maxEventPage { return cursor }
            }
        }

        for await item in connection.items {
            switch item {
            case .frame(let frame):
                try await write(frame)

            case .text(let text):
                try await outbound.write(.text(text))

            case .events(let id, let events):
                guard var cursor = cursors[id], let app = caller.appID else { continue }
                for event in events where event.seq > cursor {
                    if event.seq > cursor + 1 { cursor = try await replay(id, app: app, after: cursor, upTo: event.seq - 1) }
                    guard event.seq == cursor + 1 else { continue }
                    try await outbound.write(.text(event.frame))
                    delivered.increment()
                    cursor = event.seq
                }
                cursors[id] = cursor

            case .subscribe(let subscribe):
                let id = subscribe.conversationID
                guard let app = caller.appID, let conversation = try await server.store.conversation(id, app: app) else { continue }
                var after = max(0, subscribe.afterSeq)
                // Another epoch, or a cursor beyond what the store holds (a restored backup): the
                // client's copy cannot be trusted, so say so and send everything.
                if (subscribe.epoch != nil && subscribe.epoch != epoch) || after > conversation.lastSeq {
                    try await write(.reset(.init(conversationID: id, epoch: epoch)))
                    after = 0
                }
                let cursor = try await replay(id, app: app, after: after)
                cursors[id] = cursor
                try await write(.subscribed(.init(conversationID: id, lastSeq: cursor, epoch: epoch)))
                if case .visitor = caller, let position = await server.routing.position(of: id) {
                    try await write(.queuePosition(.init(conversationID: id, position: position)))
                }

            case .unsubscribe(let id):
                cursors[id] = nil

            case .catchUp(let id):
                guard let cursor = cursors[id], let app = caller.appID else { continue }
                cursors[id] = try await replay(id, app: app, after: cursor)
            }
        }
        if let reason = connection.revocationReason {
            try await outbound.close(.policyViolation, reason: reason)
        }
    }
}
