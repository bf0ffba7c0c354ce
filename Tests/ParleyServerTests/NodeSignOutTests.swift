import Foundation
import NIOWebSocket
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// Signing a visitor out reaches every node: the token is refused everywhere at once (the check
/// reads the shared store), and its sockets on the other nodes close.
@Suite(.timeLimit(.minutes(2)), .enabled(if: nodeTestDatabaseURL != nil, "set PARLEY_TEST_DATABASE_URL=postgres://… (scripts/test-postgres.sh start)"))
struct NodeSignOutTests {
    @Test func signingOutOnOneNode_closesTheTokensSocketOnTheOther() async throws {
        try await withTwoNodes { one, two, _ in
            let session = try await one.visitor("device-two-nodes")
            let socket = try await two.socket(session.token)
            #expect(try await one.http.request("POST", "/v1/visitor/logout", token: session.token).status == 204)

            let frame = try await socket.next { if case .error = $0 { true } else { false } }
            guard case .error(let error) = frame else { return }
            #expect(error.code == "unauthorized")
            try await socket.waitUntilClosed()
            #expect(socket.receivedCloseCode == .policyViolation)
            #expect(try await two.http.request("GET", "/v1/conversations", token: session.token).status == 401)
        }
    }
}
