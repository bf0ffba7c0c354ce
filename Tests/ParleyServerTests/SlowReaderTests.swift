import Foundation
import HTTPTypes
import Logging
import ParleyCore
import ParleyTestSupport
import ParleyServer
import Testing
import WSClient

@Suite(.timeLimit(.minutes(3)))
struct SlowReaderTests {
    @Test func slowReader_isDisconnected_whileOthersReceiveEverything() async throws {
        try await withServer(configure: { $0.realtimeBufferLimit = 16 }) { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            let fast = try await server.socket(session.token)
            try await fast.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            _ = try await fast.next { if case .subscribed = $0 { true } else { false } }

            // A reader that subscribes and then never reads: its TCP window fills, then its queue.
            let (closed, closedContinuation) = AsyncStream.makeStream(of: Void.self)
            var configuration = WebSocketClientConfiguration()
            configuration.additionalHeaders[.authorization] = "Bearer \(session.token)"
            let subscribe = String(decoding: try ParleyJSON.encode(ClientFrame.subscribe(.init(conversationID: conversation.id, afterSeq: 0))), as: UTF8.self)
            let slowTask = Task {
                _ = try? await WebSocketClient.connect(url: server.realtimeURL, configuration: configuration, logger: Logger(label: "slow")) { _, outbound, _ in
                    try await outbound.write(.text(subscribe))
                    // Probe until the server has cut us off; never touch the inbound side.
                    var limit = WaitLimit(.seconds(90))
                    while !limit.isSpent() {
                        try await Task.sleep(for: .milliseconds(100))
                        try await outbound.write(.text(#"{"type":"ping"}"#))
                    }
                }
                closedContinuation.yield()
                closedContinuation.finish()
            }

            // Large messages from several senders at once.
            let senders = 8, perSender = 150
            let text = String(repeating: "z", count: 6_000)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sender in 0..<senders {
                    group.addTask {
                        for index in 0..<perSender {
                            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                                           SendMessageRequest(clientMessageID: "s\(sender)-\(index)", text: text),
                                                           token: session.token, as: SendMessageResponse.self)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let lastSeq = Int64(1 + senders * perSender)

            // The slow reader is gone…
            let wasClosed: Bool = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await _ in closed { return true }
                    return false
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(60))
                    return false
                }
                let result = await group.next()!
                group.cancelAll()
                return result
            }
            slowTask.cancel()
            #expect(wasClosed, "the slow reader was not disconnected")
            // …and the fast one received every event, in order.
            _ = try await fast.nextEvent(in: conversation.id, timeout: .seconds(30)) { $0.seq == lastSeq }
            let received = fast.buffer.pending.compactMap { frame -> Int64? in
                if case .event(let event) = frame { return event.seq }
                return nil
            }
            #expect(received == Array(1..<lastSeq))
            await fast.close()
        }
    }
}
