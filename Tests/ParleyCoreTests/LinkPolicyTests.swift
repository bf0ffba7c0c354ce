import Foundation
import ParleyCore
import Testing

/// The link decision the chat page, ParleyKit and the server share.
struct LinkPolicyTests {
    static let policy = LinkPolicy(insideHosts: ["help.example.com", "*.docs.example.org"], otherLinks: .outside)

    @Test(arguments: [
        ("https://help.example.com/returns", LinkPolicy.Decision.openInside),
        ("http://HELP.example.com", .openInside),
        ("https://help.example.com./x", .openInside),
        ("https://api.docs.example.org/v1", .openInside),
        ("https://a.b.docs.example.org/", .openInside),
        ("https://docs.example.org/", .openOutside),               // `*.` is under the name, not the name
        ("https://evildocs.example.org/", .openOutside),           // a suffix only on a dot boundary
        ("https://help.example.com.evil.example/", .openOutside),
        ("https://help.example.com@evil.example/", .ignore),       // a user name hides the real host
        ("javascript:alert(1)", .ignore),
        ("data:text/html,<b>x</b>", .ignore),
        ("file:///etc/passwd", .ignore),
        ("mailto:help@example.com", .ignore),
        ("//help.example.com/", .ignore),
        ("https://shop.example.com/ a", .ignore),
    ])
    func decide(_ link: String, expected: LinkPolicy.Decision) {
        #expect(Self.policy.decide(link) == expected)
    }

    @Test func block_blocksOnlyWhatIsNotInside() {
        var policy = Self.policy
        policy.otherLinks = .block
        #expect(policy.decide("https://shop.example.com/") == .block)
        #expect(policy.decide("https://help.example.com/") == .openInside)
        #expect(policy.decide("javascript:alert(1)") == .ignore)
    }

    @Test func wireForm_andDefaults() throws {
        let json = #"{"inside_hosts":["help.example.com"],"other_links":"block","embed_origins":["https://www.example.com"]}"#
        let decoded = try ParleyJSON.decode(LinkPolicy.self, from: Data(json.utf8))
        #expect(decoded == LinkPolicy(insideHosts: ["help.example.com"], otherLinks: .block, embedOrigins: ["https://www.example.com"]))
        #expect(try ParleyJSON.decode(LinkPolicy.self, from: Data("{}".utf8)) == .defaults)
        #expect(throws: (any Error).self) { try ParleyJSON.decode(LinkPolicy.self, from: Data(#"{"other_links":"sometimes"}"#.utf8)) }
    }

    @Test func check_refusesWhatIsNotAHostOrAnOrigin() {
        let good = LinkPolicy(insideHosts: ["help.example.com", "*.example.org", "localhost"], embedOrigins: ["https://www.example.com", "http://localhost:8080"])
        #expect(throws: Never.self) { try good.check() }
        for bad in [
            LinkPolicy(insideHosts: ["*"]), LinkPolicy(insideHosts: ["*.*.example.com"]), LinkPolicy(insideHosts: ["exa mple.com"]),
            LinkPolicy(insideHosts: ["-bad.example.com"]), LinkPolicy(insideHosts: ["help.example.com:443"]),
            LinkPolicy(insideHosts: Array(repeating: "a.example.com", count: 51)),
            LinkPolicy(embedOrigins: ["www.example.com"]), LinkPolicy(embedOrigins: ["https://www.example.com/"]),
            LinkPolicy(embedOrigins: ["ftp://www.example.com"]), LinkPolicy(embedOrigins: ["https://user@www.example.com"]),
        ] {
            #expect(throws: Validation.Failure.self, "\(bad)") { try bad.check() }
        }
    }

    @Test func webURL_rules() {
        for good in ["https://example.com", "http://127.0.0.1:8080/a?b=c#d", "https://xn--bcher-kva.example/"] {
            #expect(throws: Never.self) { try Validation.webURL(good) }
        }
        for bad in ["", "example.com", "ftp://example.com", "https://", "https://u:p@example.com", "https://exa mple.com", "https://example.com/\u{0}"] {
            #expect(throws: Validation.Failure.self, "\(bad)") { try Validation.webURL(bad) }
        }
    }
}
