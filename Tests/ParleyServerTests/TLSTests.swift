import Foundation
import NIOCore
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// parleyd serving TLS itself: HTTPS and `wss:` with a certificate from a test authority, the
/// connection guard reading the plaintext under it, and a client refusing a certificate it does not
/// trust.
@Suite(.timeLimit(.minutes(2)))
struct TLSTests {
    @Test func overTLS_healthAnswers_andTheRealtimeSocketUpgrades() async throws {
        try await withServer(tls: TestCertificates.server) { server in
            #expect(server.baseURL.absoluteString.hasPrefix("https://"))
            let health = try await server.http.request("GET", "/health")
            #expect(health.status == 200)
            let session = try await server.visitor()
            let socket = try await server.socket(session.token)
            try await socket.send(.ping(.init(ref: "over-tls")))
            #expect(try await socket.next { if case .pong = $0 { true } else { false } } == .pong(.init(ref: "over-tls")))
            await socket.close()
        }
    }

    @Test func theConnectionGuard_readsThePlaintextUnderTLS() async throws {
        // The deadline runs from the accept, the handshake included: long enough for a busy machine.
        try await withServer(tls: TestCertificates.server, configure: { $0.requestHeadTimeout = .seconds(3) }) { server in
            // A head never finished after the handshake: closed by the head's deadline, with no
            // answer (a send that finds the connection already closed says the same).
            let unfinished: [UInt8]
            do {
                unfinished = try await RawConnection.with(port: server.port, tls: server.tls) { connection in
                    try await connection.send(Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
                    return try await connection.readUntilClosed()
                }
            } catch let error as ChannelError where error == .ioOnClosedChannel {
                unfinished = []
            }
            #expect(unfinished.isEmpty)
            // A frame without a mask, decrypted: refused with 1002.
            let token = try await server.visitor().token
            try await RawConnection.with(port: server.port, tls: server.tls) { connection in
                try await connection.send(server.upgradeRequest(token: token))
                #expect(try await connection.read(through: Array("\r\n\r\n".utf8)).starts(with: Array("HTTP/1.1 101 ".utf8)))
                try await connection.send(RawFrames.frame(Array(try ParleyJSON.encode(ClientFrame.ping(.init(ref: "x")))), masked: false))
                #expect(RawFrames.serverFrames(try await connection.readUntilClosed()).last?.closeCode == 1002)
            }
        }
    }

    @Test func aClientTrustingTheTestAuthority_refusesTheImpostor() async throws {
        try await withServer(tls: TestCertificates.impostor) { server in
            let trusted = try await server.http.request("GET", "/health")
            #expect(trusted.status == 200, "served, and trusted by whoever trusts it")
            // A client that trusts the test authority (what TestCertificates.server's anchor is) fails the handshake.
            await #expect(throws: (any Error).self) {
                try await RawConnection.with(port: server.port, tls: TestCertificates.server) { connection in
                    try await connection.send(Array("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
                    _ = try await connection.readUntilClosed()
                }
            }
        }
    }

    @Test func theTestCertificates_haveKeysOfTheirOwn() {
        let pins = [TestCertificates.authority, TestCertificates.server, TestCertificates.impostor].map(\.spkiSHA256Base64)
        #expect(Set(pins).count == 3)
        #expect(pins.allSatisfy { Data(base64Encoded: $0)?.count == 32 })
        #expect(TestCertificates.server.trustAnchorPEM == TestCertificates.authority.certificatePEM)
        #expect(TestCertificates.impostor.trustAnchorPEM == TestCertificates.impostor.certificatePEM)
        #expect(TestCertificates.server.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(TestCertificates.server.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(TestCertificates.server.certificateDER.first == 0x30, "a DER SEQUENCE")
    }
}
