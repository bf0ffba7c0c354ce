import ParleyTestSupport

extension TestServer {
    /// Opens a realtime socket with a token.
    func socket(_ token: String) async throws -> TestSocket {
        try await TestSocket.connect(url: realtimeURL, token: token)
    }
}
