import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// Reports computed from a history built at known times, on both stores: every figure exact.
@Suite(.timeLimit(.minutes(3)))
struct ReportTests {
    /// 2027-01-15 08:00 UTC (09:00 in Berlin).
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    struct History {
        var ann: AgentSession
        var bob: AgentSession
        var ids: [ConversationID]
        var billing: Queue
    }

    /// Four conversations: two answered and ended on the first day, one never answered, and one
    /// started at 00:30 Berlin time the next day (23:30 UTC the first day) that Ann answers and
    /// Bob ends after a transfer to
    /// the Billing queue.
    func build(_ server: TestServer, clock: ManualClock) async throws -> History {
        let billing = try await server.http.post("/v1/admin/apps/\(server.appID)/queues", QueueRequest(name: "Billing"), token: server.adminToken, as: Queue.self)
        let ann = try await server.agent(name: "Ann", capacity: 5, queues: [server.demo.queue.id, billing.id])
        let bob = try await server.agent(name: "Bob", capacity: 5, queues: [server.demo.queue.id, billing.id])
        func open() async throws -> (Conversation, VisitorSession) {
            let visitor = try await server.visitor()
            return (try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self), visitor)
        }
        func post(_ path: String, _ token: String, body: Data = Data("{}".utf8)) async throws {
            let response = try await server.http.request("POST", path, body: body, token: token)
            #expect(response.status == 200, "\(path): \(response.status)")
        }
        func reply(_ id: ConversationID, _ agent: AgentSession) async throws {
            let response = try await server.http.send("POST", "/v1/conversations/\(id)/messages",
                                                      SendMessageRequest(clientMessageID: UUID().uuidString, text: "Hello"), token: agent.token)
            #expect(response.status == 200 || response.status == 201, "reply: \(response.status)")
        }
        func rate(_ id: ConversationID, _ visitor: VisitorSession, _ score: Int, _ comment: String) async throws {
            #expect(try await server.http.send("PUT", "/v1/conversations/\(id)/rating", RatingRequest(score: score, comment: comment),
                                               token: visitor.token).status == 200)
        }

        let (c1, v1) = try await open()
        clock.advance(by: 60)
        try await post("/v1/conversations/\(c1.id)/accept", ann.token)
        clock.advance(by: 30)
        try await reply(c1.id, ann)                     // first response 90 s
        clock.advance(by: 510)
        try await post("/v1/conversations/\(c1.id)/end", ann.token, body: Data())   // resolution 600 s
        try await rate(c1.id, v1, 5, "Great, thanks")

        clock.advance(by: 400)                          // t0 + 1,000 s
        let (c2, v2) = try await open()
        try await post("/v1/conversations/\(c2.id)/accept", bob.token)
        clock.advance(by: 30)
        try await reply(c2.id, bob)                     // 30 s
        clock.advance(by: 270)
        try await post("/v1/conversations/\(c2.id)/end", bob.token, body: Data())   // 300 s
        try await rate(c2.id, v2, 2, "=HYPERLINK(\"x\"), slow")

        clock.advance(by: 700)                          // t0 + 2,000 s
        let (c3, _) = try await open()                  // nobody answers

        clock.advance(by: 15.5 * 3_600 - 2_000)         // 23:30 UTC, 00:30 in Berlin the next day
        // Their sessions ran out overnight.
        func login(_ session: AgentSession) async throws -> AgentSession {
            try await server.http.post("/v1/agent/login", AgentLoginRequest(email: session.agent.email, password: "password-123"), as: AgentSession.self)
        }
        let (annToday, bobToday) = (try await login(ann), try await login(bob))
        let (c4, _) = try await open()
        try await post("/v1/conversations/\(c4.id)/accept", annToday.token)
        clock.advance(by: 120)
        try await reply(c4.id, annToday)                     // 120 s, by Ann
        let moved = try await server.http.send("POST", "/v1/conversations/\(c4.id)/transfer", TransferRequest(queueID: billing.id), token: annToday.token)
        #expect(moved.status == 200, "transfer: \(moved.status)")
        try await post("/v1/conversations/\(c4.id)/accept", bobToday.token)
        clock.advance(by: 780)
        try await post("/v1/conversations/\(c4.id)/end", bobToday.token, body: Data())   // 900 s, handled last by Bob
        return History(ann: ann, bob: bob, ids: [c1.id, c2.id, c3.id, c4.id], billing: billing)
    }

    func figures(_ conversations: Int, _ answered: Int, _ ended: Int, first: [Int64?], resolution: [Int64?],
                 firstCount: Int, resolutionCount: Int, rating: RatingSummary.Average) -> ReportFigures {
        ReportFigures(conversations: conversations, answered: answered, ended: ended,
                      firstResponse: DurationFigures(count: firstCount, p50: first[0], p90: first[1]),
                      resolution: DurationFigures(count: resolutionCount, p50: resolution[0], p90: resolution[1]), rating: rating)
    }

    @Test(arguments: TestStore.available)
    func aKnownHistory_givesExactFigures_perDayQueueAndAgent(store: TestStore) async throws {
        let clock = ManualClock(start: Self.start)
        try await withServer(on: store, configure: { $0.clock = clock }) { server in
            let history = try await build(server, clock: clock)
            let path = "/v1/admin/apps/\(server.appID)/reports?from=2027-01-15&to=2027-01-16&time_zone=Europe/Berlin"
            let report = try await server.http.get(path, token: server.adminToken, as: TeamReport.self)

            let noRating = RatingSummary.Average(id: nil, name: nil, scores: [])
            let totals = figures(4, 3, 3, first: [90_000, 120_000], resolution: [600_000, 900_000], firstCount: 3, resolutionCount: 3,
                                 rating: .init(id: nil, name: nil, count: 2, average: 3.5, distribution: [0, 1, 0, 0, 1]))
            #expect(report.from == "2027-01-15" && report.to == "2027-01-16" && report.timeZone == "Europe/Berlin")
            #expect(report.totals == totals)
            #expect(report.days.map(\.date) == ["2027-01-15", "2027-01-16"])
            let firstDay = figures(3, 2, 2, first: [30_000, 90_000], resolution: [300_000, 600_000], firstCount: 2, resolutionCount: 2,
                                   rating: .init(id: nil, name: nil, scores: [5, 2]))
            let secondDay = figures(1, 1, 1, first: [120_000, 120_000], resolution: [900_000, 900_000], firstCount: 1, resolutionCount: 1, rating: noRating)
            #expect(report.days.map(\.figures) == [firstDay, secondDay])
            #expect(report.queues == [ReportGroup(id: server.demo.queue.id.rawValue, name: server.demo.queue.name, figures: firstDay),
                                      ReportGroup(id: history.billing.id.rawValue, name: "Billing", figures: secondDay)])
            // Bob handled two last (one he ended after Ann answered it); Ann answered two first.
            #expect(report.agents.map(\.name) == ["Bob", "Ann"])
            #expect(report.agents[0] == ReportGroup(id: history.bob.agent.id.rawValue, name: "Bob", figures: figures(
                2, 1, 2, first: [30_000, 30_000], resolution: [300_000, 900_000], firstCount: 1, resolutionCount: 2,
                rating: .init(id: nil, name: nil, scores: [2]))))
            #expect(report.agents[1] == ReportGroup(id: history.ann.agent.id.rawValue, name: "Ann", figures: figures(
                1, 2, 1, first: [90_000, 120_000], resolution: [600_000, 600_000], firstCount: 2, resolutionCount: 1,
                rating: .init(id: nil, name: nil, scores: [5]))))

            // Cut in UTC, the last conversation started on the first day.
            let utc = try await server.http.get("/v1/admin/apps/\(server.appID)/reports?from=2027-01-15&to=2027-01-16",
                                                token: server.adminToken, as: TeamReport.self)
            #expect(utc.days.map(\.figures.conversations) == [4, 0] && utc.totals == totals)
            #expect(utc.timeZone == "UTC", "named as asked, by default")
            // A range that misses them all still lists its days.
            let before = try await server.http.get("/v1/admin/apps/\(server.appID)/reports?from=2027-01-10&to=2027-01-14",
                                                   token: server.adminToken, as: TeamReport.self)
            #expect(before.days.count == 5 && before.totals.conversations == 0 && before.totals.firstResponse == DurationFigures(count: 0, p50: nil, p90: nil))
            // Without a range: the last 30 days up to the clock's today.
            let recent = try await server.http.get("/v1/admin/apps/\(server.appID)/reports", token: server.adminToken, as: TeamReport.self)
            #expect(recent.days.count == 30 && recent.to == "2027-01-15" && recent.totals.conversations == 4)
        }
    }

    @Test(arguments: TestStore.available)
    func ratingsWithComments_pagedNewestFirst_andCSVRowsPerConversation(store: TestStore) async throws {
        let clock = ManualClock(start: Self.start)
        try await withServer(on: store, configure: { $0.clock = clock }) { server in
            let history = try await build(server, clock: clock)
            let base = "/v1/admin/apps/\(server.appID)/reports"
            let range = "from=2027-01-15&to=2027-01-16&time_zone=Europe/Berlin"
            let first = try await server.http.get("\(base)/ratings?\(range)&limit=1", token: server.adminToken, as: ReportRatingList.self)
            #expect(first.ratings.map(\.score) == [2] && first.ratings[0].comment == "=HYPERLINK(\"x\"), slow" && first.ratings[0].agentName == "Bob")
            let cursor = try #require(first.nextCursor)
            let second = try await server.http.get("\(base)/ratings?\(range)&limit=1&cursor=\(cursor)", token: server.adminToken, as: ReportRatingList.self)
            #expect(second.ratings.map(\.conversationID) == [history.ids[0]] && second.ratings[0].comment == "Great, thanks" && second.nextCursor == nil)
            #expect(second.ratings[0].queueName == server.demo.queue.name && second.ratings[0].ratedAt == Self.start.addingTimeInterval(600))

            let csv = try await server.http.request("GET", "\(base)/conversations.csv?\(range)", token: server.adminToken)
            #expect(csv.status == 200)
            #expect(csv.headers["content-type"]?.hasPrefix("text/csv") == true)
            let text = String(decoding: csv.body, as: UTF8.self)
            let lines = text.components(separatedBy: "\r\n")
            #expect(lines.count == 6 && lines[5].isEmpty, "a header, four rows, a final CRLF")
            #expect(lines[0] == ReportCSV.header.joined(separator: ","))
            let queue = server.demo.queue
            #expect(lines[1] == "\(history.ids[0]),2027-01-15T08:00:00.000Z,2027-01-15,\(queue.id),\(queue.name),\(history.ann.agent.id),Ann,ended,"
                + "2027-01-15T08:01:30.000Z,\(history.ann.agent.id),90000,2027-01-15T08:10:00.000Z,600000,5,\"Great, thanks\"")
            #expect(lines[2].hasSuffix(",300000,2,\"'=HYPERLINK(\"\"x\"\"), slow\""), "a formula is shown, not run; quotes doubled")
            #expect(lines[3] == "\(history.ids[2]),2027-01-15T08:33:20.000Z,2027-01-15,\(queue.id),\(queue.name),,,queued,,,,,,,")
            #expect(lines[4].contains(",\(history.billing.id),Billing,\(history.bob.agent.id),Bob,ended,") && lines[4].contains(",\(history.ann.agent.id),120000,"),
                    "handled by Bob in Billing, answered by Ann")
        }
    }

    @Test func badRanges_areRefused_andOnlyTheAppsAdminsMayRead() async throws {
        try await withServer { server in
            let base = "/v1/admin/apps/\(server.appID)/reports"
            for query in ["from=2027-01-15", "to=2027-01-15", "from=2027-02-30&to=2027-03-01", "from=2027-01-16&to=2027-01-15",
                          "from=2026-01-01&to=2027-01-02", "from=15.01.2027&to=2027-01-16", "from=2027-01-15&to=2027-01-16&time_zone=Mars/Olympus"] {
                let response = try await server.http.request("GET", "\(base)?\(query)", token: server.adminToken)
                #expect(response.status == 400, "\(query)")
                #expect(try response.decode(ErrorBody.self).error.code == "bad_request", "\(query)")
            }
            #expect(try await server.http.request("GET", "\(base)/ratings?cursor=nonsense", token: server.adminToken).status == 400)
            #expect(try await server.http.request("GET", "\(base)/ratings?limit=101", token: server.adminToken).status == 400)
            let agent = try await server.agent(name: "Ann")
            for path in [base, "\(base)/ratings", "\(base)/conversations.csv"] {
                #expect(try await server.http.request("GET", path, token: agent.token).status == 403, "\(path): admins only")
            }
            let (other, _) = try await server.otherApp()
            let admin = try await server.agent(name: "Boss", role: .admin)
            #expect(try await server.http.request("GET", "/v1/admin/apps/\(other.app.id)/reports", token: admin.token).status == 404, "another app")
            #expect(try await server.http.request("GET", base, token: admin.token).status == 200)
        }
    }
}
