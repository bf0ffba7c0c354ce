import CoreMetrics
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyStore

/// One `/v1/realtime` socket: a reader that handles client frames in the WebSocket layer's task,
/// and a ``RealtimeWriter`` that runs on the socket's event loop only while there is something to
/// send (no task of its own per socket).
struct RealtimeSession {
    let server: ParleyServer
    let caller: Caller
    let channel: any Channel

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let epoch = try await server.store.epoch()
        let metrics = server.configuration.metrics
        let writer = RealtimeWriter(channel: channel, context: .init(
            store: server.store, routing: server.routing, delivered: metrics.eventsDelivered, caller: caller, epoch: epoch,
            closeForRevocation: { reason in Task { try? await outbound.close(.policyViolation, reason: reason) } }))
        let connection = RealtimeConnection(
            id: server.hub.makeID(), caller: caller, bufferLimit: server.configuration.realtimeBufferLimit, writer: writer)
        // `ready` is queued before the connection can hear anything, so it is always the first frame.
        connection.enqueue(.frame(.ready(.init(
            epoch: epoch, participant: caller.participant, heartbeatSeconds: Int(server.configuration.heartbeat.components.seconds)))))
        server.hub.register(connection)
        if case .agent(let agent) = caller { await server.routing.agentConnected(agent.agentID) }
        let gauge = if case .agent = caller { metrics.agentConnections } else { metrics.visitorConnections }
        gauge.increment()
        defer { gauge.decrement() }

        // The token's end ends the socket too: a timer on the socket's event loop, not a sleeping
        // task per connection (idle connections are most of them; each task costs memory).
        let lifetime = max(0, min(caller.expiresAt.timeIntervalSince(server.configuration.clock.now()), 365 * 24 * 3600))
        let expiry = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(lifetime * 1000))) {
            connection.revoke(reason: "token expired")
        }
        let result: Result<Void, any Error>
        do {
            try await readLoop(connection, inbound: inbound)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        expiry.cancel()
        // What was queued goes out before the WebSocket layer's close frame.
        connection.finish()
        await connection.waitUntilDrained()
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
}
