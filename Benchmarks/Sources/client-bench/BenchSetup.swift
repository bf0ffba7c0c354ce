import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO

/// A fresh app and queue on the server, and the clients and data of a run (HTTP setup, not timed).
struct BenchSetup: Sendable {
    let http: HTTPClient
    let appID: AppID
    let queueID: QueueID
    let runID: String

    static func create(base: URL, adminToken: String) async throws -> BenchSetup {
        let http = HTTPClient(baseURL: base)
        let runID = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36)
        let app = try await http.call(.admin.createApp, body: CreateAppRequest(name: "client-bench \(runID)"), token: adminToken)
        let queue = try await http.call(.admin.createQueue(app.app.id), body: QueueRequest(name: "bench"), token: adminToken)
        return BenchSetup(http: http, appID: app.app.id, queueID: queue.id, runID: runID)
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("client-bench-\(UUID().uuidString)")
    }

    /// A copy of a storage directory, to measure on without touching the original.
    static func temporaryCopy(of directory: URL) throws -> URL {
        let copy = temporaryDirectory()
        try FileManager.default.copyItem(at: directory, to: copy)
        return copy
    }

    /// A visitor client as an app makes one: default reconnect policy, its own storage folder.
    func client(serverURL: URL, directory: URL, storage: (any ParleyStorage)? = nil) -> ParleyClient {
        Self.client(serverURL: serverURL, appID: appID, queueID: queueID, directory: directory, storage: storage)
    }

    static func client(serverURL: URL, appID: AppID, queueID: QueueID, directory: URL, storage: (any ParleyStorage)? = nil) -> ParleyClient {
        var configuration = ParleyConfiguration(serverURL: serverURL, appID: appID)
        configuration.storage = .directory(directory)
        configuration.defaultQueueID = queueID
        configuration.userName = "Bench visitor"
        return ParleyClient(configuration: configuration, transport: NIOWebSocketTransport(), storage: storage)
    }

    /// A visitor with `conversations` conversations of `messages` messages each, written over HTTP.
    struct Seeded: Sendable {
        let deviceID: String
        let token: String
        let conversations: [ConversationID]
        /// The events of all those conversations on the server.
        let events: Int
    }

    func seedHistory(conversations: Int, messages: Int) async throws -> Seeded {
        let deviceID = "client-bench-\(runID)-loaded"
        let session = try await http.call(.session.visitor, body: VisitorSessionRequest(appID: appID, deviceID: deviceID, name: "Bench visitor"))
        var ids: [ConversationID] = []
        for index in 0..<conversations {
            let conversation = try await http.call(.conversations.open,
                                                   body: OpenConversationRequest(queueID: queueID, subject: "Order \(index)", attributes: ["plan": "pro"]),
                                                   token: session.token)
            ids.append(conversation.id)
        }
        // One sender per conversation keeps each conversation's order; 16 conversations at a time.
        let http = self.http
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let id = ids[next]
                next += 1
                group.addTask {
                    for message in 0..<messages {
                        try await http.call(.conversations.send(id), body: SendMessageRequest(
                            clientMessageID: UUID().uuidString.lowercased(), text: "Message \(message): where is my order? It was due on Tuesday."),
                            token: session.token)
                    }
                }
            }
            while next < min(16, ids.count) { add() }
            while try await group.next() != nil { if next < ids.count { add() } }
        }
        let list = try await http.call(.conversations.list.query("limit", 500), token: session.token)
        return Seeded(deviceID: deviceID, token: session.token, conversations: ids, events: Int(list.conversations.reduce(0) { $0 + $1.lastSeq }))
    }

    /// Posts messages to a conversation one after the other (the loaded client receives them live).
    func post(_ count: Int, messagesTo conversation: ConversationID, token: String) async throws {
        for index in 0..<count {
            try await http.call(.conversations.send(conversation), body: SendMessageRequest(
                clientMessageID: UUID().uuidString.lowercased(), text: "Live message \(index): is anyone there?"), token: token)
        }
    }
}

extension ParleyClient {
    /// Starts the client and returns the time until it is connected.
    func timeToConnected() async throws -> Duration {
        let states = await connectionStates()
        let clock = ContinuousClock()
        let start = clock.now
        try await self.start()
        for await state in states {
            switch state {
            case .connected: return clock.now - start
            case .failed(let error): throw error
            default: continue
            }
        }
        throw ParleyError.stopped
    }

    /// Opens every conversation's model (a UI that shows each one) and waits until each shows at
    /// least `messages` messages; returns the models (kept alive by the caller, as a UI would).
    func openEveryConversation(count: Int, messages: Int) async throws -> [ConversationModel] {
        do {
            try await waitUntil { await self.state.conversations.count >= count }
        } catch {
            progress("only \(await state.conversations.count) of \(count) conversations listed")
            throw error
        }
        var models: [ConversationModel] = []
        for summary in await state.conversations { models.append(try await conversation(summary.id)) }
        let all = models
        do {
            try await waitUntil {
                for model in all where await model.messages.count < messages { return false }
                return true
            }
        } catch {
            var counts: [Int] = []
            for model in all { counts.append(await model.messages.count) }
            progress("history incomplete: \(all.count) conversations, messages per conversation \(counts.sorted())")
            throw error
        }
        return models
    }

    /// Polls a condition every 20 ms, for at most `timeout` (a benchmark, not a test: polling is fine).
    func waitUntil(timeout: Duration = .seconds(120), _ condition: @Sendable () async -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw ParleyError.network("timed out waiting") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A line on standard error: where a run is (the table goes to standard output).
func progress(_ line: String) {
    FileHandle.standardError.write(Data("client-bench: \(line)\n".utf8))
}
