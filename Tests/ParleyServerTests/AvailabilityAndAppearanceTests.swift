import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// Before a chat starts: the app's appearance, and whether a queue is open (business hours, agents
/// online, the estimated wait), as admins set them and visitors read them.
@Suite(.timeLimit(.minutes(2)))
struct AvailabilityAndAppearanceTests {
    @Test func appearance_setByAdmins_readByVisitors_badValuesRefusedAndNothingChanged() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            #expect(try await server.http.get("/v1/appearance", token: visitor.token, as: Appearance.self) == Appearance())

            let look = Appearance(title: "Acme help", welcomeMessage: ["en": "Hi! How can we help?", "de": "Hallo! Wie können wir helfen?"],
                                  themeColor: "#1A73E8", avatarURL: "https://cdn.acme.test/avatar.png", visitorDisplayName: "You")
            let path = "/v1/admin/apps/\(server.appID)/appearance"
            #expect(try await server.http.send("PUT", path, look, token: server.adminToken).status == 200)
            #expect(try await server.http.get("/v1/appearance", token: visitor.token, as: Appearance.self) == look)

            for bad in [Appearance(themeColor: "blue"), Appearance(avatarURL: "http://cdn.acme.test/a.png"), Appearance(title: ""),
                        Appearance(welcomeMessage: ["<x>": "hi"])] {
                let reply = try await server.http.send("PUT", path, bad, token: server.adminToken)
                #expect(reply.status == 400, "\(bad)")
            }
            let agent = try await server.agent()
            #expect(try await server.http.send("PUT", path, Appearance(title: "Mine"), token: agent.token).status == 403)
            #expect(try await server.http.get("/v1/appearance", token: visitor.token, as: Appearance.self) == look, "unchanged")
        }
    }

    @Test func availability_closedOnAHoliday_noAgent_thenOpenWithAnEstimatedWait() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let queue = server.demo.queue.id
            let hoursPath = "/v1/admin/apps/\(server.appID)/queues/\(queue)/hours"
            #expect(try await server.http.request("GET", hoursPath, token: server.adminToken).status == 204, "always open by default")

            // Open around the clock every day, except today (UTC), a holiday: closed until midnight.
            let today = LocalDate(daysSinceEpoch: Int(Date().timeIntervalSince1970 / 86_400))
            let allDay = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, [BusinessHours.Interval.hours(0, 24)]) })
            let holiday = BusinessHours(timeZone: "UTC", weekly: allDay, holidays: [today])
            #expect(try await server.http.send("PUT", hoursPath, holiday, token: server.adminToken).status == 200)
            let closed = try await server.http.get("/v1/availability?queue=\(queue)", token: visitor.token, as: AvailabilityReport.self)
            #expect(closed.status == .closed(nextOpening: Date(timeIntervalSince1970: TimeInterval(today.next.daysSinceEpoch * 86_400))))

            let overlapping = BusinessHours(timeZone: "UTC", weekly: [.monday: [.hours(9, 12), .hours(11, 17)]])
            #expect(try await server.http.send("PUT", hoursPath, overlapping, token: server.adminToken).status == 400)
            #expect(try await server.http.send("PUT", hoursPath, BusinessHours(timeZone: "Mars/Olympus", weekly: allDay), token: server.adminToken).status == 400)
            #expect(try await server.http.get(hoursPath, token: server.adminToken, as: BusinessHours.self) == holiday, "unchanged")

            // Always open again, but nobody is online.
            #expect(try await server.http.request("DELETE", hoursPath, token: server.adminToken).status == 204)
            #expect(try await server.http.get("/v1/availability", token: visitor.token, as: AvailabilityReport.self).status == .noAgentOnline)

            // An agent online and connected: open. After three chats that waited, an estimate.
            let agent = try await server.agent(capacity: 5)
            let socket = try await server.socket(agent.token)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agent.token)
            let open = try await server.http.get("/v1/availability", token: visitor.token, as: AvailabilityReport.self)
            #expect(open.status == .open && open.estimatedWaitSeconds == nil, "no history yet")
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .away), token: agent.token)
            for _ in 0..<3 {
                let waiting = try await server.visitor()
                let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: waiting.token, as: Conversation.self)
                try await Task.sleep(for: .milliseconds(30))
                #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
            }
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agent.token)
            let estimated = try await server.http.get("/v1/availability", token: visitor.token, as: AvailabilityReport.self)
            #expect(estimated.status == .open)
            let seconds = try #require(estimated.estimatedWaitSeconds, "three waits recorded")
            #expect(seconds >= 1 && seconds < 60)

            #expect(try await server.http.request("GET", "/v1/availability?queue=que_nope", token: visitor.token).status == 404)
            await socket.close()
        }
    }
}
