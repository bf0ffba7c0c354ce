import Foundation
import ParleyCore
import Testing

/// A path parameter that is not an id, to see what percent-encoding does with any text.
private struct Segment: PathParameter {
    var pathValue: String
}

@Suite("Endpoints")
struct EndpointTests {
    @Test func parameters_fillTheTemplateInOrder() {
        let app = AppID.generate(), queue = QueueID.generate()
        let hours: Endpoint<Void, BusinessHours> = .admin.hours(app, queue)
        #expect(hours.path == "/v1/admin/apps/\(app)/queues/\(queue)/hours")
        #expect(hours.template == "/v1/admin/apps/:app/queues/:queue/hours")
        #expect(hours.parameterNames == ["app", "queue"])
        #expect(hours.isComplete)
        #expect(!Endpoint<Void, BusinessHours>.admin.hours.isComplete, "a table entry has no values yet")
        let form: Endpoint<Void, Form> = .admin.form(app, Form.Kind.postChat)
        #expect(form.path == "/v1/admin/apps/\(app)/forms/post_chat")
    }

    @Test func anEndpointWithoutParameters_isItsTemplate() {
        let health: Endpoint<Void, Health> = .server.health
        #expect(health.path == "/health")
        #expect(health.target == "/health")
        #expect(health.isComplete)
        #expect(health.description == "GET /health")
    }

    @Test func pathValues_arePercentEncoded_soTheyStayOneSegment() {
        let endpoint = Endpoint<Void, Void>(.get, "/v1/things/:name/parts")(Segment(pathValue: "a/b c?d#e%f&g=ü"))
        #expect(endpoint.path == "/v1/things/a%2Fb%20c%3Fd%23e%25f%26g%3D%C3%BC/parts")
        let unreserved = Endpoint<Void, Void>(.get, "/v1/things/:name")(Segment(pathValue: "AZaz09-._~"))
        #expect(unreserved.path == "/v1/things/AZaz09-._~")
    }

    @Test func queryItems_areEncoded_andNilValuesLeftOut() {
        let id = ConversationID.generate()
        let none: QueueID? = nil
        let events: Endpoint<Void, EventPage> = .conversations.events(id).query("after", 12).query("limit", 500).query("queue", none)
        #expect(events.target == "/v1/conversations/\(id)/events?after=12&limit=500")
        let odd: Endpoint<Void, ConversationList> = .conversations.list.query("view", "a&b=c d")
        #expect(odd.target == "/v1/conversations?view=a%26b%3Dc%20d")
        let forms: Endpoint<Void, FormSet> = .lifecycle.forms.query("queue", none)
        #expect(forms.target == "/v1/forms")
    }

    @Test func everyEndpoint_hasAUniqueMethodAndTemplate() {
        let all = AnyEndpoint.all
        #expect(Set(all).count == all.count, "duplicates: \(Dictionary(grouping: all, by: { $0 }).filter { $0.value.count > 1 }.keys)")
        // Two templates that differ only in parameter names would be the same route.
        let shapes = all.map { endpoint in
            "\(endpoint.method.rawValue) " + endpoint.template.split(separator: "/").map { $0.hasPrefix(":") ? ":" : String($0) }.joined(separator: "/")
        }
        #expect(Set(shapes).count == shapes.count)
    }

    @Test func everyTemplate_isAnAbsolutePath_withNamedParameters() {
        for endpoint in AnyEndpoint.all {
            #expect(endpoint.template.hasPrefix("/"), "\(endpoint)")
            #expect(!endpoint.template.hasSuffix("/"), "\(endpoint)")
            #expect(!endpoint.template.contains("?"), "\(endpoint): queries are added with query(_:_:)")
            let segments = endpoint.template.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            #expect(segments.allSatisfy { !$0.isEmpty && $0 != ":" }, "\(endpoint)")
        }
    }
}
