import Foundation
import Hummingbird
import JWTKit
import NIOWebSocket
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// Verified identity through the HTTP API: the admin sets the app's identity options, a session
/// request proves the user, and the user is the same visitor on every device.
@Suite("Verified sessions")
struct VerifiedSessionTests {
    static func setIdentity(_ server: TestServer, _ settings: IdentitySettings) async throws {
        let reply = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/identity", settings, token: server.adminToken)
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
    }

    static func session(_ server: TestServer, device: String, proof: IdentityProof? = nil, name: String? = nil) async throws -> TestHTTP.Reply {
        try await server.http.send("POST", "/v1/visitor/session",
                                   VisitorSessionRequest(appID: server.appID, deviceID: device, name: name, identity: proof))
    }

    @Test func identityHash_signsInTheSameUserOnEveryDevice_andSignInBringsTheDevicesConversations() async throws {
        try await withServer { server in
            try await Self.setIdentity(server, IdentitySettings(acceptsIdentityHash: true))
            let hash = IdentityHash.make(userID: "user-77", secretKey: server.demo.app.secretKey)

            // Before signing in, on the phone: an anonymous visitor writes.
            let anonymous = try await server.visitor("phone-of-ann")
            let early = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "Before"), token: anonymous.token, as: Conversation.self)

            let phone = try await Self.session(server, device: "phone-of-ann", proof: .init(userID: "user-77", kind: .userHash(hash)), name: "Ann")
            #expect(phone.status == 200)
            let onPhone = try phone.decode(VisitorSession.self)
            #expect(onPhone.visitor.userID == "user-77" && onPhone.visitor.id != anonymous.visitor.id)
            #expect(onPhone.visitor.verifiedFields == [], "a hash proves the user id only; the name was claimed")

            let laptop = try await Self.session(server, device: "laptop-of-ann", proof: .init(userID: "user-77", kind: .userHash(hash.uppercased())))
            let onLaptop = try laptop.decode(VisitorSession.self)
            #expect(onLaptop.visitor.id == onPhone.visitor.id, "the same user on every device")
            let listed = try await server.http.get("/v1/conversations", token: onLaptop.token, as: ConversationList.self)
            #expect(listed.conversations.map(\.id) == [early.id], "what was written before signing in is the user's")

            let stale = try await server.http.request("GET", "/v1/conversations/\(early.id)", token: anonymous.token)
            #expect(stale.status == 404, "the anonymous token no longer reaches the conversation")

            let wrong = try await Self.session(server, device: "laptop-of-ann", proof: .init(userID: "user-78", kind: .userHash(hash)))
            #expect(wrong.status == 401 && wrong.error?.error.code == "unauthorized")
            let noUser = try await server.http.send("POST", "/v1/visitor/session",
                                                    ["app_id": server.appID.rawValue, "device_id": "device-nouser", "user_hash": hash])
            #expect(noUser.status == 400)
        }
    }

    @Test func aProofTheAppDoesNotAccept_isRefused_andAnonymousIsRefusedWhenVerificationIsRequired() async throws {
        try await withServer { server in
            let hash = IdentityHash.make(userID: "u1", secretKey: server.demo.app.secretKey)
            let notEnabled = try await Self.session(server, device: "device-one", proof: .init(userID: "u1", kind: .userHash(hash)))
            #expect(notEnabled.status == 401)

            let refused = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/identity", IdentitySettings(requiresVerification: true),
                                                     token: server.adminToken)
            #expect(refused.status == 400 && refused.error?.error.message.contains("require_verification") == true)

            try await Self.setIdentity(server, IdentitySettings(acceptsIdentityHash: true, requiresVerification: true))
            let anonymous = try await Self.session(server, device: "device-two")
            #expect(anonymous.status == 401)
            #expect(try await Self.session(server, device: "device-two", proof: .init(userID: "u1", kind: .userHash(hash))).status == 200)

            let settings = try await server.http.get("/v1/admin/apps/\(server.appID)/identity", token: server.adminToken, as: IdentitySettings.self)
            #expect(settings == IdentitySettings(acceptsIdentityHash: true, requiresVerification: true))
            let agent = try await server.agent(role: .agent)
            #expect(try await server.http.request("GET", "/v1/admin/apps/\(server.appID)/identity", token: agent.token).status == 403,
                    "a plain agent does not see the app's identity settings")
        }
    }

    @Test func authService_verifiesTheProfile_theDeskSeesWhatIsVerified_andADownServiceFailsClosed() async throws {
        let service = try await LocalHTTPServer.start { router in
            router.post("check") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 10_000)
                let fields = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: String] ?? [:]
                switch fields["security_key"] {
                case "good": return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"name": "Ann Lee", "attributes": {"tier": "gold"}}"#)))
                case "down": return Response(status: .badGateway)
                default: return Response(status: .forbidden)
                }
            }
        }
        defer { Task { await service.stop() } }
        try await withServer { server in
            try await Self.setIdentity(server, IdentitySettings(authServiceURL: service.url("/check").absoluteString))
            let reply = try await Self.session(server, device: "device-a", proof: .init(userID: "ann", kind: .securityKey("good")), name: "claimed name")
            let session = try reply.decode(VisitorSession.self)
            #expect(session.visitor.name == "Ann Lee", "the verified name wins over the claimed one")
            #expect(session.visitor.verifiedFields == ["attributes.tier", "name"])

            let agent = try await server.demoAgent()
            let seen = try await server.http.get("/v1/visitors/\(session.visitor.id)", token: agent.token, as: Visitor.self)
            #expect(seen.userID == "ann" && seen.verifiedFields == ["attributes.tier", "name"])

            let refused = try await Self.session(server, device: "device-a", proof: .init(userID: "ann", kind: .securityKey("bad")))
            #expect(refused.status == 401)
            let down = try await Self.session(server, device: "device-a", proof: .init(userID: "ann", kind: .securityKey("down")))
            #expect(down.status == 503 && down.error?.error.code == "identity_unavailable")
        }
    }

    @Test func userToken_signedWithTheAppsSecret_mustNameTheUserGiven() async throws {
        try await withServer { server in
            try await Self.setIdentity(server, IdentitySettings(acceptsSecretKeyTokens: true))
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: server.demo.app.secretKey), digestAlgorithm: .sha256)
            let claims = UserTokenClaims(sub: .init(value: "user-9"), aud: .init(value: [server.appID.rawValue]),
                                         exp: .init(value: Date().addingTimeInterval(600)), email: "nine@example.com")
            let token = try await keys.sign(claims)
            let ok = try await Self.session(server, device: "device-jwt", proof: .init(userID: "user-9", kind: .userToken(token)))
            #expect(ok.status == 200)
            #expect(try ok.decode(VisitorSession.self).visitor.verifiedFields == ["email"])
            let other = try await Self.session(server, device: "device-jwt", proof: .init(userID: "user-10", kind: .userToken(token)))
            #expect(other.status == 401 && other.error?.error.message.contains("sub") == true)
        }
    }
}

/// Signing a visitor out on the server.
@Suite("Visitor sign-out")
struct VisitorSignOutTests {
    @Test func signOut_refusesTheToken_closesItsSockets_andLeavesOtherSessionsAlone() async throws {
        try await withServer { server in
            let session = try await server.visitor("device-signout")
            let other = try await server.visitor("device-signout")  // the same visitor, another session
            let socket = try await server.socket(session.token)
            let otherSocket = try await server.socket(other.token)

            #expect(try await server.http.request("POST", "/v1/visitor/logout", token: session.token).status == 204)
            let frame = try await socket.next { if case .error = $0 { true } else { false } }
            guard case .error(let error) = frame else { return }
            #expect(error.code == "unauthorized")
            try await socket.waitUntilClosed()
            #expect(socket.receivedCloseCode == .policyViolation)

            let refused = try await server.http.request("GET", "/v1/conversations", token: session.token)
            #expect(refused.status == 401 && refused.error?.error.message == "the visitor signed out")
            #expect(try await server.http.request("GET", "/v1/conversations", token: other.token).status == 200)
            try await otherSocket.send(.ping(.init(ref: "still-here")))
            _ = try await otherSocket.next { if case .pong = $0 { true } else { false } }
            await otherSocket.close()

            let agent = try await server.demoAgent()
            #expect(try await server.http.request("POST", "/v1/visitor/logout", token: agent.token).status == 403)
        }
    }
}
