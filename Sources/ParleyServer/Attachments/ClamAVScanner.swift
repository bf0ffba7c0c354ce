import Dispatch
import Foundation

/// Asks a ClamAV daemon (`clamd`, Debian's `clamav-daemon`) about each upload over its local
/// socket, with `INSTREAM`: the file's bytes go to the daemon in chunks, so clamd needs no access
/// to parleyd's files. parleyd `--clamav /run/clamav/clamd.ctl`.
public struct ClamAVScanner: MalwareScanner {
    /// The daemon's `LocalSocket`.
    public let socketPath: String
    /// How long one scan may take before the upload is refused (fail closed). Default 60 s.
    public let timeout: TimeInterval

    static let chunkSize = 64 << 10

    /// A scanner for a daemon's socket.
    /// - Parameters:
    ///   - socketPath: clamd's `LocalSocket`.
    ///   - timeout: the longest a scan may take.
    public init(socketPath: String, timeout: TimeInterval = 60) {
        self.socketPath = socketPath
        self.timeout = timeout
    }

    public func scan(_ file: URL) async throws -> String? {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try scanBlocking(file) })
            }
        }
    }

    /// Whether the daemon answers `PING` with `PONG` (it listens once its database is loaded).
    public func ping() async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result {
                    let fd = try connected()
                    defer { close(fd) }
                    try send(Array("zPING\0".utf8), on: fd)
                    return try answer(on: fd) == "PONG"
                })
            }
        }
    }

    /// Why a scan could not be made.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func scanBlocking(_ file: URL) throws -> String? {
        let fd = try connected()
        defer { close(fd) }
        try send(Array("zINSTREAM\0".utf8), on: fd)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: Self.chunkSize), !chunk.isEmpty {
            try send(Self.bigEndian(UInt32(chunk.count)) + Array(chunk), on: fd)
        }
        try send(Self.bigEndian(0), on: fd)
        return try Self.verdict(try answer(on: fd))
    }

    /// A connected socket to the daemon, with the timeout on reads and writes.
    private func connected() throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "socket path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "cannot reach clamd at \(socketPath): errno \(errno)")
        }
        return fd
    }

    /// The daemon's answer, up to its terminating NUL.
    private func answer(on fd: Int32) throws -> String {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !answer.contains(0) {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// `stream: OK` → nil; `stream: Name FOUND` → `Name`; anything else (`… ERROR`, nothing) throws.
    static func verdict(_ answer: String) throws -> String? {
        let text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        if text == "stream: OK" { return nil }
        if text.hasPrefix("stream: "), text.hasSuffix(" FOUND") {
            return String(text.dropFirst("stream: ".count).dropLast(" FOUND".count))
        }
        throw Failure(description: "clamd answered \(text.isEmpty ? "nothing" : text)")
    }

    private func send(_ bytes: [UInt8], on fd: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "writing to clamd: errno \(errno)") }
            offset += written
        }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
