import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// The desk's browser sessions: an HttpOnly cookie, a CSRF header on every change, same-origin only.
@Suite(.timeLimit(.minutes(2)))
struct DeskSessionTests {
    /// Logs the demo admin into the desk; returns the cookie header value and the CSRF token.
    private func deskLogin(_ server: TestServer) async throws -> (cookie: String, csrf: String, reply: TestHTTP.Reply) {
        let reply = try await server.http.send("POST", "/v1/desk/login", AgentLoginRequest(email: server.demo.agent.email, password: server.demo.password))
        guard reply.status == 200, let setCookie = reply.headers["set-cookie"] else { throw TestFailure("desk login → \(reply.status)") }
        let session = try reply.decode(DeskSession.self)
        return (String(setCookie.split(separator: ";")[0]), session.csrfToken, reply)
    }

    @Test func login_setsAnHttpOnlyStrictCookie_andTheBodyHoldsNoToken() async throws {
        try await withServer { server in
            let (cookie, csrf, reply) = try await deskLogin(server)
            let setCookie = try #require(reply.headers["set-cookie"])
            #expect(cookie.hasPrefix("parley_session=pa1."))
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/v1", "Max-Age=43200"] { #expect(setCookie.contains(attribute)) }
            #expect(!setCookie.contains("Secure"))
            let body = String(decoding: reply.body, as: UTF8.self)
            #expect(!body.contains("pa1."))
            #expect(!csrf.isEmpty)

            // A reload learns the session and the same CSRF token from the cookie alone.
            let session = try await server.http.request("GET", "/v1/desk/session", headers: ["Cookie": cookie]).decode(DeskSession.self)
            #expect(session.agent.id == server.demo.agent.id && session.csrfToken == csrf)
            // Without the cookie, with a bearer token, or with a dead cookie there is no desk session: 204.
            #expect(try await server.http.request("GET", "/v1/desk/session").status == 204)
            let bearer = try await server.demoAgent()
            #expect(try await server.http.request("GET", "/v1/desk/session", token: bearer.token).status == 204)
            let dead = try await server.http.request("GET", "/v1/desk/session", headers: ["Cookie": "parley_session=pa1.revoked"])
            #expect(dead.status == 204 && dead.headers["set-cookie"]?.contains("Max-Age=0") == true)
            // A wrong password is the usual 401, and sets no cookie.
            let wrong = try await server.http.send("POST", "/v1/desk/login", AgentLoginRequest(email: server.demo.agent.email, password: "wrong-password"))
            #expect(wrong.status == 401 && wrong.headers["set-cookie"] == nil)
        }
    }

    @Test func behindAnHTTPSProxy_theCookieIsSecure() async throws {
        try await withServer { server in
            let reply = try await server.http.send(
                "POST", "/v1/desk/login", AgentLoginRequest(email: server.demo.agent.email, password: server.demo.password),
                headers: ["X-Forwarded-Proto": "https"])
            #expect(reply.headers["set-cookie"]?.contains("; Secure") == true)
        }
    }

    @Test func changesWithTheCookie_needTheCSRFHeader_andChangeNothingWithout() async throws {
        try await withServer { server in
            let (cookie, csrf, _) = try await deskLogin(server)
            let away = AvailabilityRequest(availability: .away)
            for headers in [["Cookie": cookie], ["Cookie": cookie, "X-Parley-CSRF": "forged"]] {
                let refused = try await server.http.send("PUT", "/v1/agent/availability", away, headers: headers)
                #expect(refused.status == 403 && refused.error?.error.code == "forbidden")
            }
            let me = try await server.http.request("GET", "/v1/agent/me", headers: ["Cookie": cookie]).decode(Agent.self)
            #expect(me.availability == .offline)

            let accepted = try await server.http.send("PUT", "/v1/agent/availability", away, headers: ["Cookie": cookie, "X-Parley-CSRF": csrf])
            #expect(accepted.status == 200)
            #expect(try accepted.decode(Agent.self).availability == .away)

            // Another session's CSRF token does not fit this cookie.
            let (_, otherCSRF, _) = try await deskLogin(server)
            let crossed = try await server.http.send("PUT", "/v1/agent/availability", away, headers: ["Cookie": cookie, "X-Parley-CSRF": otherCSRF])
            #expect(crossed.status == 403)
        }
    }

    @Test func anotherOrigin_cannotUseTheCookie_forReadsOrTheSocket() async throws {
        try await withServer { server in
            let (cookie, _, _) = try await deskLogin(server)
            let evil = try await server.http.request("GET", "/v1/agent/me", headers: ["Cookie": cookie, "Origin": "http://evil.example"])
            #expect(evil.status == 403)
            let same = try await server.http.request("GET", "/v1/agent/me", headers: ["Cookie": cookie, "Origin": "http://127.0.0.1:\(server.port)"])
            #expect(same.status == 200)

            // The socket: our own origin upgrades; another origin, none, or a forged second one do not
            // (the WebSocket layer refuses an upgrade with a bare 400; a plain GET shows the reason).
            let own = "http://127.0.0.1:\(server.port)"
            #expect(try await RawUpgrade.status(port: server.port, headers: ["Cookie": cookie, "Origin": own]) == 101)
            #expect(try await RawUpgrade.status(port: server.port, headers: ["Cookie": cookie, "Origin": "http://evil.example"]) == 400)
            #expect(try await RawUpgrade.status(port: server.port, headers: ["Cookie": cookie]) == 400)
            #expect(try await RawUpgrade.status(port: server.port, headers: ["Cookie": cookie, "Origin": "\(own)\r\nOrigin: http://evil.example"]) == 400)
            #expect(try await RawUpgrade.status(port: server.port, headers: ["Origin": own]) == 400)
            let reason = try await server.http.request("GET", "/v1/realtime", headers: ["Cookie": cookie])
            #expect(reason.status == 403 && reason.error?.error.message.contains("desk") == true)
        }
    }

    @Test func onlyAgentTokensAreHonouredInTheCookie() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let reply = try await server.http.request("GET", "/v1/conversations", headers: ["Cookie": "parley_session=\(visitor.token)"])
            #expect(reply.status == 401)
            let operatorCookie = try await server.http.request("GET", "/v1/admin/apps", headers: ["Cookie": "parley_session=\(server.adminToken)"])
            #expect(operatorCookie.status == 401)
        }
    }

    @Test func logout_revokesThatSession_andClearsTheCookie() async throws {
        try await withServer { server in
            let (cookie, csrf, _) = try await deskLogin(server)
            let bearer = try await server.demoAgent()
            let socket = try await server.socket(bearer.token)

            #expect(try await server.http.request("POST", "/v1/desk/logout", headers: ["Cookie": cookie]).status == 403)
            let reply = try await server.http.request("POST", "/v1/desk/logout", headers: ["Cookie": cookie, "X-Parley-CSRF": csrf])
            #expect(reply.status == 204)
            #expect(reply.headers["set-cookie"]?.contains("Max-Age=0") == true)
            #expect(try await server.http.request("GET", "/v1/agent/me", headers: ["Cookie": cookie]).status == 401)
            // Only this session ends: the same agent's other session (and its socket) carries on.
            #expect(try await server.http.request("GET", "/v1/agent/me", token: bearer.token).status == 200)
            try await socket.send(.ping(.init(ref: "still-here")))
            _ = try await socket.next { if case .pong = $0 { true } else { false } }
            await socket.close()
            // A stale cookie still gets cleared.
            #expect(try await server.http.request("POST", "/v1/desk/logout", headers: ["Cookie": cookie]).status == 204)
        }
    }
}

/// The desk's static files: only listed files, each with the desk's security headers.
@Suite(.timeLimit(.minutes(2)))
struct DeskFileTests {
    private func withDesk(_ body: (TestServer) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("desk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("js"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("<!doctype html><title>Desk</title>".utf8).write(to: folder.appendingPathComponent("index.html"))
        try Data("export const x = 1;".utf8).write(to: folder.appendingPathComponent("js/app.js"))
        try Data("not served".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try await withServer(configure: { $0.deskDirectory = folder }) { server in try await body(server) }
    }

    @Test func indexAndScripts_areServed_withAStrictPolicy() async throws {
        try await withDesk { server in
            let redirect = try await server.http.request("GET", "/desk")
            #expect(redirect.status == 308 && redirect.headers["location"] == "/desk/")

            let index = try await server.http.request("GET", "/desk/")
            #expect(index.status == 200)
            #expect(index.headers["content-type"] == "text/html; charset=utf-8")
            #expect(String(decoding: index.body, as: UTF8.self).contains("<title>Desk</title>"))
            let policy = try #require(index.headers["content-security-policy"])
            #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe-inline"))
            #expect(index.headers["x-content-type-options"] == "nosniff")

            let script = try await server.http.request("GET", "/desk/js/app.js")
            #expect(script.status == 200 && script.headers["content-type"] == "text/javascript; charset=utf-8")
            let etag = try #require(script.headers["etag"])
            #expect(try await server.http.request("GET", "/desk/js/app.js", headers: ["If-None-Match": etag]).status == 304)
        }
    }

    @Test func unlistedFilesAndTraversal_areNotFound() async throws {
        try await withDesk { server in
            for path in ["/desk/notes.txt", "/desk/missing.js", "/desk/../Package.swift", "/desk/js/../../index.html", "/desk/%2e%2e/Package.swift"] {
                let status = try await server.http.request("GET", path).status
                #expect(status == 404, "\(path)")
            }
        }
    }

    @Test func theBundledDesk_servesItsPageAndEveryFileItLinks() async throws {
        try await withServer { server in
            let index = try await server.http.request("GET", "/desk/")
            #expect(index.status == 200)
            let html = String(decoding: index.body, as: UTF8.self)
            let links = html.matches(of: /(?:src|href)="([a-z0-9\/_.-]+\.(?:js|css|svg|png|ico))"/).map { String($0.1) }
            #expect(links.contains { $0.hasPrefix("v/") && $0.hasSuffix("/js/main.js") })
            for link in links {
                let status = try await server.http.request("GET", "/desk/\(link)").status
                #expect(status == 200, "\(link)")
            }
            // No inline script or style: the page must work under its own policy.
            #expect(!html.contains("<script>") && !html.contains(" style=") && !html.contains(" onclick="))
            // Modules import each other by relative path; each import resolves to a served file.
            let main = String(decoding: try await server.http.request("GET", "/desk/js/main.js").body, as: UTF8.self)
            for module in main.matches(of: /from "\.\/([a-z0-9_-]+\.js)"/).map({ String($0.1) }) {
                let status = try await server.http.request("GET", "/desk/js/\(module)").status
                #expect(status == 200, "\(module)")
            }
        }
    }

    @Test func deskFiles_areServedGzipped_whenAsked_andRevalidatedByTheirOwnValidator() async throws {
        try await withServer { server in
            // The test client unzips what it gets: the validators tell the two representations apart.
            let plain = try await server.http.request("GET", "/desk/js/main.js", headers: ["Accept-Encoding": "identity"])
            let zipped = try await server.http.request("GET", "/desk/js/main.js", headers: ["Accept-Encoding": "gzip, br"])
            #expect(plain.status == 200 && plain.headers["content-encoding"] == nil)
            #expect(zipped.status == 200 && zipped.headers["content-encoding"] == "gzip" && zipped.headers["vary"] == "Accept-Encoding")
            #expect(zipped.body == plain.body)
            #expect(zipped.headers["cache-control"] == "no-cache", "still revalidated: a new version never runs with an old script")
            let etag = try #require(zipped.headers["etag"])
            #expect(etag.hasSuffix("-gz\"") && plain.headers["etag"].map { !$0.hasSuffix("-gz\"") } == true)
            let again = try await server.http.request("GET", "/desk/js/main.js", headers: ["Accept-Encoding": "gzip", "If-None-Match": etag])
            #expect(again.status == 304)
        }
    }

    @Test func theIndex_namesItsFilesUnderTheirVersion_cachedForGood() async throws {
        try await withServer { server in
            let index = try await server.http.request("GET", "/desk/")
            #expect(index.headers["cache-control"] == "no-cache", "the page itself is always revalidated")
            let html = String(decoding: index.body, as: UTF8.self)
            let script = try #require(html.firstMatch(of: /<script type="module" src="(v\/([0-9a-f]{24})\/js\/main\.js)">/))
            #expect(!html.contains("href=\"css/") && html.contains("href=\"v/\(script.2)/css/base.css\""))
            let versioned = try await server.http.request("GET", "/desk/\(script.1)")
            let plain = try await server.http.request("GET", "/desk/js/main.js")
            #expect(versioned.status == 200 && versioned.body == plain.body)
            #expect(versioned.headers["cache-control"] == "public, max-age=31536000, immutable")
            // Its relative imports resolve under the same version.
            let imported = try await server.http.request("GET", "/desk/v/\(script.2)/js/api.js")
            #expect(imported.status == 200 && imported.headers["cache-control"] == "public, max-age=31536000, immutable")
            // A page from before an upgrade asks for an older version: today's file, revalidated.
            let stale = try await server.http.request("GET", "/desk/v/000000000000000000000000/js/main.js")
            #expect(stale.status == 200 && stale.body == plain.body && stale.headers["cache-control"] == "no-cache")
            #expect(try await server.http.request("GET", "/desk/v/\(script.2)/js/nothing.js").status == 404)
        }
    }
}
