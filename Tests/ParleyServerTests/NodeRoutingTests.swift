import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// Routing, appends and live signals with two parleyd nodes in this process on one real PostgreSQL
/// database (issue 6, decision 0006).
@Suite(.timeLimit(.minutes(3)), .enabled(if: nodeTestDatabaseURL != nil, "set PARLEY_TEST_DATABASE_URL=postgres://… (scripts/test-postgres.sh start)"))
struct NodeRoutingTests {
    /// Fast heartbeats, so a node's agents' sockets are known to the other within a second.
    static func fastNodes(_ configuration: inout ServerConfiguration) {
        configuration.nodeHeartbeat = 0.3
        configuration.nodeTimeout = 3
    }

    @Test func fiftyConversations_twoNodes_twoAgentsOfCapacityThree_neverOverCapacity_neverTwice_allServed() async throws {
        try await withTwoNodes(configure: Self.fastNodes) { one, two, _ in
            let nodes = [one, two]
            // Ten visitors first, five on each node, while no agent is connected: both nodes must
            // report the same queue positions.
            var opened: [(conversation: Conversation, visitor: VisitorSession, node: TestServer)] = []
            for index in 0..<10 {
                let node = nodes[index % 2]
                let visitor = try await node.visitor()
                let conversation = try await node.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
                opened.append((conversation, visitor, node))
            }
            var positions: [[Int?]] = []
            for _ in 0..<100 {
                positions = []
                for node in nodes {
                    var seen: [Int?] = []
                    for entry in opened {
                        seen.append(try await node.http.get("/v1/conversations/\(entry.conversation.id)", token: entry.visitor.token, as: Conversation.self).queuePosition)
                    }
                    positions.append(seen)
                }
                if positions[0] == positions[1], Set(positions[0].compactMap { $0 }) == Set(1...10) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(positions[0] == positions[1], "both nodes report the same positions")
            #expect(positions[0].compactMap { $0 }.sorted() == Array(1...10))

            // Two agents of capacity 3, one connected to each node, who end each conversation soon after getting it.
            let agents = [try await one.agent(name: "Ann", capacity: 3), try await two.agent(name: "Bob", capacity: 3)]
            let sockets = [try await one.socket(agents[0].token), try await two.socket(agents[1].token)]
            for (agent, node) in zip(agents, nodes) {
                let online = try await node.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agent.token)
                #expect(online.status == 200)
            }
            let tally = Tally()

            // The database's view, sampled all along: nobody ever holds more than 3.
            let sampler = Task { [agents, one] in
                while await !tally.done {
                    for agent in agents {
                        let held = try await one.store.conversations(.init(appID: one.appID, agentID: agent.agent.id, states: [.assigned], limit: 100))
                        await tally.load(held.count, of: agent.agent.id)
                    }
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            let workers = (0..<2).map { index in
                Task { [agents, nodes] in
                    let (agent, node) = (agents[index], nodes[index])
                    var handled = Set<ConversationID>()
                    while await !tally.done {
                        let mine = try await node.http.get("/v1/conversations?view=mine", token: agent.token, as: ConversationList.self).conversations
                        await tally.load(mine.count, of: agent.agent.id)
                        for conversation in mine where !handled.contains(conversation.id) {
                            handled.insert(conversation.id)
                            await tally.served(conversation.id, by: agent.agent.id)
                            try await Task.sleep(for: .milliseconds(20))
                            let reply = try await node.http.request("POST", "/v1/conversations/\(conversation.id)/end", token: agent.token)
                            #expect(reply.status == 200, "end: \(reply.status)")
                        }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
            }

            // Forty more visitors, at once, on both nodes.
            try await withThrowingTaskGroup(of: (Conversation, VisitorSession, Int).self) { group in
                for index in 10..<50 {
                    group.addTask {
                        let node = nodes[index % 2]
                        let visitor = try await node.visitor()
                        return (try await node.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self), visitor, index % 2)
                    }
                }
                for try await (conversation, visitor, node) in group { opened.append((conversation, visitor, nodes[node])) }
            }

            // Every conversation is eventually assigned and ended.
            _ = try await eventually(timeout: .seconds(90)) { await tally.servedCount >= 50 }
            await tally.finish()
            for worker in workers { try await worker.value }
            try await sampler.value

            let byAgent = await tally.byAgent
            let all = byAgent.values.flatMap { $0 }
            #expect(all.count == 50, "served \(all.count) of 50")
            #expect(Set(all).count == all.count, "no conversation served twice")
            #expect(Set(all) == Set(opened.map(\.conversation.id)))
            #expect(byAgent.count == 2, "both agents served: \(byAgent.mapValues(\.count))")
            let loads = await tally.maxLoad
            #expect(loads.values.allSatisfy { $0 <= 3 }, "capacity never exceeded: \(loads)")
            #expect(loads.values.contains(3), "the agents were full at some point, so the limit was tested: \(loads)")
            for entry in opened {
                let events = try await one.store.events(entry.conversation.id, app: one.appID, afterSeq: 0, limit: 100)
                let assignments = events.compactMap { event -> StateChange? in
                    if case .stateChanged(let change) = event.body, change.to == .assigned { change } else { nil }
                }
                #expect(assignments.count == 1, "\(entry.conversation.id) assigned \(assignments.count) times")
                let ends = events.filter { if case .stateChanged(let change) = $0.body { change.to == .ended } else { false } }
                #expect(ends.count == 1 && ends.allSatisfy { if case .stateChanged(let change) = $0.body { change.reason == .endedByAgent } else { false } },
                        "ended once, by its agent")
            }
            for socket in sockets { await socket.close() }
        }
    }

    @Test func concurrentAppendsFromBothNodes_seqsGapFreeAndUnique() async throws {
        try await withTwoNodes { one, two, _ in
            let visitor = try await one.visitor()
            let conversation = try await one.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let perNode = 100
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (name, node) in [("one", one), ("two", two)] {
                    for writer in 0..<4 {
                        group.addTask {
                            for index in stride(from: writer, to: perNode, by: 4) {
                                _ = try await node.http.post(
                                    "/v1/conversations/\(conversation.id)/messages",
                                    SendMessageRequest(clientMessageID: "\(name)-\(index)", text: "from node \(name), \(index)"),
                                    token: visitor.token, as: SendMessageResponse.self)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let events = try await two.store.events(conversation.id, app: two.appID, afterSeq: 0, limit: 1000)
            #expect(events.map(\.seq) == Array(1...Int64(events.count)), "gap-free and unique")
            let ids = events.compactMap(\.message?.clientMessageID)
            #expect(ids.count == 2 * perNode)
            #expect(Set(ids) == Set(["one", "two"].flatMap { name in (0..<perNode).map { "\(name)-\($0)" } }))
        }
    }

    @Test func typingNotesPresenceAvailabilityAndLogout_reachTheOtherNode() async throws {
        try await withTwoNodes(configure: Self.fastNodes) { one, two, _ in
            let visitor = try await one.visitor()
            let conversation = try await one.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let watcher = try await two.agent(name: "Watcher")
            let watcherSocket = try await two.socket(watcher.token)
            try await watcherSocket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            _ = try await watcherSocket.next { if case .subscribed = $0 { true } else { false } }

            // Typing on node one reaches the subscriber on node two.
            let typing = try await one.http.send("POST", "/v1/conversations/\(conversation.id)/typing", TypingRequest(isTyping: true), token: visitor.token)
            #expect(typing.status == 204)
            let heard = try await watcherSocket.next { if case .typing = $0 { true } else { false } }
            guard case .typing(let frame) = heard else { return }
            #expect(frame.isTyping && frame.participant.role == .visitor && frame.conversationID == conversation.id)

            // A note written through node one reaches the agent on node two.
            let writer = try await one.agent(name: "Writer")
            _ = try await one.http.post("/v1/conversations/\(conversation.id)/notes", AddNoteRequest(clientNoteID: "n1", text: "VIP customer"),
                                        token: writer.token, as: InternalNote.self)
            let note = try await watcherSocket.next { if case .note = $0 { true } else { false } }
            guard case .note(let stored) = note else { return }
            #expect(stored.text == "VIP customer")

            // Node one knows the watcher's socket on node two, and then that they went away there.
            #expect(try await eventually { await one.parley.routing.load(agents: [watcher.agent.id], queues: []).agents[watcher.agent.id]?.connections == 1 },
                    "node one counts the watcher's socket on node two")
            let away = try await two.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .away), token: watcher.token)
            #expect(away.status == 200)
            #expect(try await eventually { await one.parley.routing.profile(of: watcher.agent.id)?.availability == .away },
                    "node one heard that the watcher is away")

            // Logging out on node one closes the session's socket on node two.
            let logout = try await one.http.request("POST", "/v1/agent/logout", token: watcher.token)
            #expect(logout.status == 204)
            #expect(try await eventually { watcherSocket.closeCode.withLock { $0 } != nil }, "the socket on node two closed")
            #expect(try await eventually { await one.parley.routing.load(agents: [watcher.agent.id], queues: []).agents[watcher.agent.id]?.connections == 0 },
                    "node one no longer counts the closed socket")
        }
    }

    /// What the agents of the fifty-conversation test saw.
    actor Tally {
        private(set) var done = false
        /// The most conversations each agent held at once, by the database and by their own list.
        private(set) var maxLoad: [AgentID: Int] = [:]
        private(set) var byAgent: [AgentID: [ConversationID]] = [:]
        var servedCount: Int { byAgent.values.reduce(0) { $0 + $1.count } }

        func load(_ count: Int, of agent: AgentID) { maxLoad[agent] = max(maxLoad[agent] ?? 0, count) }
        func served(_ conversation: ConversationID, by agent: AgentID) { byAgent[agent, default: []].append(conversation) }
        func finish() { done = true }
    }
}
