import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ParleyTestSupport

/// Sends a WebSocket upgrade request with exactly the headers given and returns the status code the
/// server answers with. WSClient always adds an `Origin` of its own, so tests of origin checks need this.
enum RawUpgrade {
    /// The status line's code. The blocking socket calls run on ``BlockingIO``'s threads: a `recv`
    /// on the cooperative pool would hold one of the threads the server needs to answer it.
    static func status(port: Int, path: String = "/v1/realtime", headers: [String: String]) async throws -> Int {
        try await BlockingIO.run { try blockingStatus(port: port, path: path, headers: headers) }
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`, whose reads give up after `patience`
    /// seconds. The caller closes it.
    static func connectedSocket(port: Int, patience: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawUpgradeError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: patience, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw RawUpgradeError("connect() failed")
        }
        return fd
    }

    private static func blockingStatus(port: Int, path: String, headers: [String: String]) throws -> Int {
        // A last resort against a server that never answers; not what a passing run waits for.
        let fd = try connectedSocket(port: port, patience: 30)
        defer { close(fd) }
        var lines = [
            "GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: Upgrade", "Upgrade: websocket",
            "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        ]
        lines += headers.map { "\($0.key): \($0.value)" }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { throw RawUpgradeError("send() failed") }
        var buffer = [UInt8](repeating: 0, count: 512)
        var count: Int
        repeat {
            // With a receive timeout set, a signal (a debugger attaching, say) ends recv with EINTR.
            count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        } while count < 0 && errno == EINTR
        guard count > 12 else { throw RawUpgradeError("no answer") }
        // "HTTP/1.1 101 Switching Protocols"
        let statusLine = String(decoding: buffer[..<count], as: UTF8.self).prefix { $0 != "\r" }
        guard let code = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { throw RawUpgradeError("bad status line \(statusLine)") }
        return code
    }
}

extension RawUpgrade {
    /// Sends `bytes` and reads until the server closes the connection; returns what it answered
    /// (empty when it closed without a word). Throws when the server keeps the connection open
    /// for `patience` seconds without a byte.
    static func sendAndReadUntilClosed(port: Int, _ bytes: [UInt8], patience: Int = 30) async throws -> [UInt8] {
        try await BlockingIO.run {
            let fd = try connectedSocket(port: port, patience: patience)
            defer { close(fd) }
            guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == bytes.count else { throw RawUpgradeError("send() failed") }
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 { answer += buffer[..<count]; continue }
                if count == 0 { return answer }  // closed by the server
                if errno == EINTR { continue }
                throw RawUpgradeError("the server kept the connection open (errno \(errno))")
            }
        }
    }
}

struct RawUpgradeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
