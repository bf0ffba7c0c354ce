import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// The chat page's static files: only listed files, gzipped (made once) when asked, revalidated by
/// ETag, under a CSP that lets websites frame the page and names the app's avatar host.
@Suite(.timeLimit(.minutes(2)))
struct ChatFileTests {
    private func withChat(_ body: (TestServer) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("js"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = "<!doctype html><title>Chat</title>" + String(repeating: "<p>compressible</p>", count: 200)
        try Data(page.utf8).write(to: folder.appendingPathComponent("index.html"))
        try Data(("export const x = 1;\n" + String(repeating: "// padding\n", count: 100)).utf8).write(to: folder.appendingPathComponent("js/chat.js"))
        try Data("not served".utf8).write(to: folder.appendingPathComponent("README.md"))
        try await withServer(configure: { $0.chatDirectory = folder }) { server in try await body(server) }
    }

    @Test func thePage_isGzippedRevalidatedAndFrameable() async throws {
        try await withChat { server in
            let app = server.appID.rawValue
            let redirect = try await server.http.request("GET", "/chat?app=\(app)")
            #expect(redirect.status == 308 && redirect.headers["location"] == "/chat/?app=\(app)")

            let index = try await server.http.request("GET", "/chat/?app=\(app)", headers: ["Accept-Encoding": "gzip"])
            #expect(index.status == 200)
            #expect(index.headers["content-encoding"] == "gzip" && index.headers["vary"] == "Accept-Encoding")
            #expect(index.headers["cache-control"] == "no-cache")
            let etag = try #require(index.headers["etag"])
            #expect(etag.hasSuffix("-gz\""))
            let policy = try #require(index.headers["content-security-policy"])
            for directive in ["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "frame-src 'none'", "frame-ancestors *"] {
                #expect(policy.contains(directive), "\(directive)")
            }
            #expect(!policy.contains("unsafe-inline") && index.headers["x-frame-options"] == nil)
            #expect(try await server.http.request("GET", "/chat/?app=\(app)", headers: ["Accept-Encoding": "gzip", "If-None-Match": etag]).status == 304)

            // Without gzip: the plain bytes, their own validator.
            let plain = try await server.http.request("GET", "/chat/js/chat.js", headers: ["Accept-Encoding": "identity"])
            #expect(plain.status == 200 && plain.headers["content-encoding"] == nil && plain.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(String(decoding: plain.body, as: UTF8.self).hasPrefix("export const x = 1;"))
            #expect(plain.headers["etag"].map { !$0.hasSuffix("-gz\"") } == true)

            #expect(try await server.http.request("GET", "/chat/README.md").status == 404)
        }
    }

    @Test func theAvatarsOrigin_isTheOneOtherImageSource() async throws {
        try await withChat { server in
            let admin = try await server.demoAgent()
            let app = server.appID.rawValue
            let saved = try await server.http.send("PUT", "/v1/admin/apps/\(app)/appearance", Appearance(avatarURL: "https://cdn.acme.test/a.png"), token: admin.token)
            #expect(saved.status == 200)
            let policy = try #require(try await server.http.request("GET", "/chat/?app=\(app)").headers["content-security-policy"])
            #expect(policy.contains("img-src 'self' data: blob: https://cdn.acme.test;"))
            let other = try #require(try await server.http.request("GET", "/chat/").headers["content-security-policy"])
            #expect(other.contains("img-src 'self' data: blob:;"))
        }
    }

    @Test func theLinkPolicy_decidesWhatThePageFrames_andWhoMayFrameIt() async throws {
        try await withChat { server in
            let admin = try await server.demoAgent()
            let app = server.appID.rawValue
            let policy = LinkPolicy(insideHosts: ["help.acme.test", "*.docs.acme.test"], embedOrigins: ["https://www.acme.test"])
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(app)/link-policy", policy, token: admin.token).status == 200)
            let csp = try #require(try await server.http.request("GET", "/chat/?app=\(app)").headers["content-security-policy"])
            #expect(csp.contains("frame-src help.acme.test *.docs.acme.test;"), "\(csp)")
            #expect(csp.hasSuffix("frame-ancestors 'self' https://www.acme.test"), "\(csp)")

            // Another app's page, or none named: nothing framed, framed anywhere.
            let bare = try #require(try await server.http.request("GET", "/chat/").headers["content-security-policy"])
            #expect(bare.contains("frame-src 'none'") && bare.hasSuffix("frame-ancestors *"))
        }
    }
}
