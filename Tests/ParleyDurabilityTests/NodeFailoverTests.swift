import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyStorePostgres
import ParleyTestSupport
import Testing

private let databaseURL = ProcessInfo.processInfo.environment["PARLEY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

/// Two real parleyd processes on one real PostgreSQL, the agent behind a stand-in load balancer
/// (issue 6): the node serving the agent is SIGKILLed; the agent's client reconnects, lands on the
/// other node, and resumes its conversation from its cursor with no gap and nothing twice.
@Suite(.timeLimit(.minutes(3)), .enabled(if: databaseURL != nil, "set PARLEY_TEST_DATABASE_URL=postgres://… (scripts/test-postgres.sh start)"))
struct NodeFailoverTests {
    static let adminToken = "failover-operator-token"

    @Test func agentsNodeKilled_agentReconnectsToTheOtherNode_andResumesWithNoGap() async throws {
        let executable = try BuiltExecutable.locate("parleyd", overrideVariable: "PARLEYD_PATH")
        let (database, drop) = try await PostgresAdmin.freshDatabase(url: try #require(databaseURL))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-failover-\(UUID().uuidString)")
        let http = DurabilityHTTP(maxConnections: 8)
        let arguments = ["--database", Self.url(of: database), "--admin-token", Self.adminToken,
                         "--node-heartbeat", "0.5", "--node-timeout", "3"]
        func node(_ name: String) throws -> ParleydSupervisor {
            let data = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: data.appendingPathComponent("logs"), withIntermediateDirectories: true)
            return ParleydSupervisor(executable: executable, dataDirectory: data, logDirectory: data.appendingPathComponent("logs"),
                                     http: http, extraArguments: arguments)
        }
        let one = try node("one"), two = try node("two")
        defer {
            one.killNow()
            two.killNow()
            try? FileManager.default.removeItem(at: root)
        }
        do {
            // Node one starts first and makes the demo app; node two joins the same database.
            let appText = try #require(try await one.start().appID, "the first node prints the demo app")
            let app = try #require(AppID(validating: appText))
            try await two.start()
            let base1 = try #require(one.baseURL), base2 = try #require(two.baseURL)
            let relay = try await TCPRelay.start(target: try #require(base2.port))

            // An agent, through the load balancer (to node two), with the real SDK.
            let queues: QueueList = try await http.json("GET", base1.appendingPathComponent("v1/admin/apps/\(app)/queues"), token: Self.adminToken)
            let email = "failover-\(UUID().uuidString.prefix(8).lowercased())@test.parley"
            _ = try await http.json(
                "POST", base1.appendingPathComponent("v1/admin/apps/\(app)/agents"), token: Self.adminToken,
                body: try ParleyJSON.encode(CreateAgentRequest(name: "Failover", email: email, password: "password-123", role: .agent,
                                                               queueIDs: queues.queues.map(\.id), capacity: 3)),
                expect: 201, as: CreatedAgent.self)
            let fastRetry = ReconnectPolicy(initialDelay: .milliseconds(100), multiplier: 1.5, maximumDelay: .seconds(1), jitter: 0.1)
            let agent = AgentClient(serverURL: try #require(URL(string: "http://127.0.0.1:\(relay.port)")),
                                    transport: NIOWebSocketTransport(connectTimeout: .seconds(5), closeTimeout: .seconds(2)), reconnectPolicy: fastRetry)
            let events = await agent.events()
            try await agent.login(email: email, password: "password-123")
            _ = try await agent.setAvailability(.online)

            // A visitor on node one; routing gives the conversation to the agent connected to node two.
            let visitor: VisitorSession = try await http.json(
                "POST", base1.appendingPathComponent("v1/visitor/session"),
                body: try ParleyJSON.encode(VisitorSessionRequest(appID: app, deviceID: "failover-\(UUID().uuidString)", name: "Vee")))
            let conversation: Conversation = try await http.json(
                "POST", base1.appendingPathComponent("v1/conversations"), token: visitor.token,
                body: try ParleyJSON.encode(OpenConversationRequest(subject: "failover")), expect: 201)
            func visitorSays(_ text: String) async throws {
                let _: SendMessageResponse = try await http.json(
                    "POST", base1.appendingPathComponent("v1/conversations/\(conversation.id)/messages"), token: visitor.token,
                    body: try ParleyJSON.encode(SendMessageRequest(clientMessageID: text.replacingOccurrences(of: " ", with: "-"), text: text)), expect: 201)
            }

            var received: [ConversationEvent] = []
            var connections = 0
            var iterator = events.makeAsyncIterator()
            /// Reads the agent's events until `done` holds for what arrived (or 30 s pass).
            func receive(until done: ([ConversationEvent]) -> Bool) async throws {
                let deadline = ContinuousClock.now + .seconds(30)
                while !done(received) {
                    guard ContinuousClock.now < deadline else { throw DurabilityError("agent received only \(received.map(\.seq))") }
                    guard let event = await iterator.next() else { throw DurabilityError("agent's event stream ended") }
                    switch event {
                    case .event(let stored) where stored.conversationID == conversation.id: received.append(stored)
                    case .connection(.connected): connections += 1
                    default: break
                    }
                }
            }
            func texts(from role: Participant.Role) -> [String] {
                received.filter { $0.author.role == role }.compactMap(\.message?.text)
            }

            // They converse while the agent is on node two.
            for index in 1...5 { try await visitorSays("before \(index)") }
            try await receive { _ in texts(from: .visitor).count == 5 }
            _ = try await agent.reply("hello, I am on node two", in: conversation.id)
            try await receive { _ in texts(from: .agent).count == 1 }

            // Node two dies. The load balancer sends new connections to node one.
            try await two.kill()
            connections = 0
            relay.target = try #require(base1.port)
            for index in 1...10 { try await visitorSays("during \(index)") }

            // The agent's client reconnects by itself, lands on node one, and resumes from its cursor.
            try await receive { _ in texts(from: .visitor).count == 15 }
            _ = try await agent.reply("still here, now on node one", in: conversation.id)
            try await receive { _ in texts(from: .agent).count == 2 }

            #expect(connections >= 1, "the client reconnected after the kill")
            let seqs = received.map(\.seq)
            #expect(seqs == Array(seqs[0]...(seqs[0] + Int64(seqs.count) - 1)), "no gap and nothing twice: \(seqs)")
            #expect(texts(from: .visitor) == (1...5).map { "before \($0)" } + (1...10).map { "during \($0)" })
            let stored: Conversation = try await http.json("GET", base1.appendingPathComponent("v1/conversations/\(conversation.id)"), token: visitor.token)
            let agentID = await agent.agent?.id
            #expect(stored.state == .assigned && stored.agentID == agentID, "still the same agent's")
            let history: EventPage = try await http.json(
                "GET", base1.appendingPathComponent("v1/conversations/\(conversation.id)/events"), token: visitor.token)
            #expect(history.events.map(\.seq).filter { $0 >= seqs[0] } == seqs, "the agent saw exactly what is stored")

            await agent.stop()
            await relay.stop()
            try await one.kill()
        } catch {
            await drop()
            throw error
        }
        await drop()
    }

    /// `postgres://user[:password]@host:port/database` for a child process.
    static func url(of configuration: PostgresStore.Configuration) -> String {
        let password = configuration.password.map { ":\($0)" } ?? ""
        return "postgres://\(configuration.username)\(password)@\(configuration.host):\(configuration.port)/\(configuration.database ?? "postgres")"
    }
}
