import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// Key pinning: the pins' form and matching alone, then ParleyKitNIO's HTTP and WebSocket against
/// a TLS parleyd with its key pinned, with another key pinned, and presenting an untrusted chain.
@Suite(.timeLimit(.minutes(2)))
struct KeyPinningTests {
    static let serverPin = try! PublicKeyPin(base64: TestCertificates.server.spkiSHA256Base64)
    static let siblingPin = try! PublicKeyPin(base64: TestCertificates.sibling.spkiSHA256Base64)
    static let authorityPin = try! PublicKeyPin(base64: TestCertificates.authority.spkiSHA256Base64)

    @Test func pins_areBase64SHA256_ofTheCertificatesKey() throws {
        #expect(try PublicKeyPin(certificateDER: TestCertificates.server.certificateDER) == Self.serverPin)
        #expect(try PublicKeyPin(base64: "sha256/" + TestCertificates.server.spkiSHA256Base64) == Self.serverPin)
        #expect(Self.serverPin.description == "sha256/" + TestCertificates.server.spkiSHA256Base64)
        #expect(throws: ParleyError.self) { try PublicKeyPin(base64: "not base64!") }
        #expect(throws: ParleyError.self) { try PublicKeyPin(base64: Data(repeating: 1, count: 20).base64EncodedString()) }
        #expect(throws: ParleyError.self) { try PublicKeyPin(certificateDER: [0x30, 0x03, 0x02, 0x01]) }
        #expect(throws: ParleyError.self) { try PublicKeyPin(certificateDER: Array(TestCertificates.server.certificateDER.prefix(100))) }
    }

    @Test func aChain_isAdmitted_whenOneOfItsKeysIsPinned() {
        let chain = [TestCertificates.server.certificateDER, TestCertificates.authority.certificateDER]
        #expect([Self.serverPin].admits(chain: chain))
        #expect([Self.authorityPin].admits(chain: chain), "a CA's key pins every certificate it signs")
        #expect(![Self.siblingPin].admits(chain: chain))
        #expect([PublicKeyPin]().admits(chain: chain), "no pins: the system's trust alone")
        #expect(![Self.serverPin].admits(chain: [[0x00, 0x01]]))
    }

    @Test func pins_needTLS_andTransportsThatCannotCheckThemRefuse() async throws {
        #expect(throws: ParleyError.self) { try [Self.serverPin].requireTLS(URL(string: "http://example.com")) }
        try [Self.serverPin].requireTLS(URL(string: "https://example.com"))
        var request = URLRequest(url: URL(string: "https://127.0.0.1:9/")!)
        request.httpMethod = "GET"
        #if !canImport(Darwin)
        await #expect(throws: ParleyError.self) { _ = try await URLSessionHTTPTransport().send(request, pinnedKeys: [Self.serverPin]) }
        #endif
        /// A transport of an app's own that knows nothing of pins.
        struct PlainTransport: RealtimeTransport {
            func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel { throw ParleyError.network("unused") }
        }
        await #expect(throws: ParleyError.self) {
            _ = try await PlainTransport().connect(to: URL(string: "wss://127.0.0.1:9/v1/realtime")!, headers: [:], pinnedKeys: [Self.serverPin])
        }
    }

    @Test func theNIOTransports_connectToAPinnedServer_andRefuseAnyOtherKey() async throws {
        try await withServer(tls: TestCertificates.server) { server in
            let trust = try TLSTrust(additionalRootsPEM: [TestCertificates.authority.certificatePEM])
            let http = NIOHTTPTransport(trust: trust)
            var request = URLRequest(url: server.baseURL.appendingPathComponent("health"))
            request.httpMethod = "GET"

            // The server's key pinned, or its authority's: HTTP and the socket work.
            for pins in [[Self.serverPin], [Self.siblingPin, Self.authorityPin]] {
                let (_, response) = try await http.send(request, pinnedKeys: pins)
                #expect(response.statusCode == 200)
            }
            let visitor = try await server.visitor()
            let realtime = NIOWebSocketTransport(trust: trust)
            let url = try #require(URL(string: server.realtimeURL))
            let channel = try await realtime.connect(to: url, headers: ["Authorization": "Bearer \(visitor.token)"], pinnedKeys: [Self.serverPin])
            var incoming = channel.incoming.makeAsyncIterator()
            #expect(try await incoming.next()?.contains("\"ready\"") == true)
            await channel.close()

            // Only another key pinned: a trusted chain is refused all the same, saying why.
            do {
                _ = try await http.send(request, pinnedKeys: [Self.siblingPin])
                Issue.record("a server without a pinned key was reached")
            } catch let error as ParleyError {
                #expect(error.isNetworkError && error.message.contains("none of the pinned keys"))
            }
            do {
                _ = try await realtime.connect(to: url, headers: ["Authorization": "Bearer \(visitor.token)"], pinnedKeys: [Self.siblingPin])
                Issue.record("a socket to a server without a pinned key was opened")
            } catch let error as ParleyError {
                #expect(error.isNetworkError && error.message.contains("none of the pinned keys"))
            }

            // A pin never makes an untrusted chain pass: without the authority among the roots.
            do {
                _ = try await NIOHTTPTransport().send(request, pinnedKeys: [Self.serverPin])
                Issue.record("an untrusted chain was accepted because of a pin")
            } catch let error as ParleyError {
                #expect(error.isNetworkError && error.message.contains("not trusted"))
            }
        }
    }

    @Test func aClientWithPins_talksToAPinnedServer_endToEnd_andIsRefusedByAnotherKey() async throws {
        try await withServer(tls: TestCertificates.server) { server in
            let trust = try TLSTrust(additionalRootsPEM: [TestCertificates.authority.certificatePEM])
            var configuration = ParleyConfiguration(serverURL: server.baseURL, appID: server.appID)
            configuration.pinnedKeys = [Self.serverPin]
            configuration.httpTransport = NIOHTTPTransport(trust: trust)
            configuration.storage = .directory(FileManager.default.temporaryDirectory.appendingPathComponent("parley-pins-\(UUID().uuidString)"))
            let client = ParleyClient(configuration: configuration, transport: NIOWebSocketTransport(trust: trust), storage: MemoryStorage())
            try await client.start()
            let conversation = try await client.openConversation(subject: "pinned")
            try await client.send("over a pinned connection", in: conversation.id)
            let model = try await client.conversation(conversation.id)
            try await waitUntil(timeout: .seconds(20)) { await model.messages.contains { $0.deliveryState == .sent } }
            await client.stop()

            configuration.pinnedKeys = [Self.siblingPin]
            let refused = ParleyClient(configuration: configuration, transport: NIOWebSocketTransport(trust: trust), storage: MemoryStorage())
            try await refused.start()
            await #expect(throws: ParleyError.self) { _ = try await refused.openConversation(subject: "never") }
            await refused.stop()
        }
    }
}
