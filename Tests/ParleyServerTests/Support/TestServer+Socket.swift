import ParleyTestSupport

extension TestServer {
    /// Opens a realtime socket with a token (over `wss:` when the server serves TLS).
    func socket(_ token: String) async throws -> TestSocket {
        try await TestSocket.connect(url: realtimeURL, token: token, tls: tls)
    }

    /// A WebSocket upgrade request for `/v1/realtime` with a bearer token, as bytes.
    func upgradeRequest(token: String) -> [UInt8] {
        let lines = [
            "GET /v1/realtime HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: Upgrade", "Upgrade: websocket",
            "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Authorization: Bearer \(token)",
        ]
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}
