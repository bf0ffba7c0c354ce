import Foundation
import NIOCore
import NIOPosix
import ParleyTestSupport

/// A real SMTP server for tests: Python's aiosmtpd (Debian's `python3-aiosmtpd`) storing every
/// message it accepts in a Maildir.
final class LocalSMTPServer: @unchecked Sendable {
    let port: Int
    let maildir: URL
    private let errorLog: URL
    private var process: SpawnedProcess?

    /// A free local port for a server that starts later (nothing listens there until ``start()``).
    init() throws {
        port = try Self.freePort()
        let name = "parley-smtp-\(UUID().uuidString)"
        maildir = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        errorLog = FileManager.default.temporaryDirectory.appendingPathComponent(name + ".stderr")
    }

    /// True when the machine can run it (the Python module is installed).
    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/aiosmtpd/__init__.py")
    }

    /// Starts aiosmtpd on ``port`` and waits until it accepts connections.
    /// - Throws: ``TestFailure`` with what it printed, when it ends before it listens or does not
    ///   listen within the limit.
    func start() async throws {
        let process = try SpawnedProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            arguments: ["-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)", "-c", "aiosmtpd.handlers.Mailbox", maildir.path],
            errors: .file(errorLog))
        self.process = process
        var limit = WaitLimit(.seconds(15))
        while true {
            if let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get() {
                try? await channel.close()
                return
            }
            if let end = process.end { throw TestFailure("aiosmtpd ended (\(end)) before it listened on port \(port): \(printed)") }
            if limit.isSpent() { throw TestFailure("aiosmtpd did not listen on port \(port) within \(limit.limit): \(printed)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// What the server wrote to standard error, for failure messages.
    private var printed: String {
        let text = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        return text.isEmpty ? "(nothing on standard error)" : String(text.suffix(2_000))
    }

    /// The messages received so far, as raw text.
    func messages() -> [String] {
        let folder = maildir.appendingPathComponent("new")
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return files.compactMap { try? String(contentsOf: $0, encoding: .utf8) }
    }

    /// Kills the server (SIGKILL: aiosmtpd may ignore SIGTERM while serving) and removes its mail
    /// and log. Not waited for: the process is reaped by its own thread (``SpawnedProcess``).
    func stop() {
        process?.signal(SIGKILL)
        process = nil
        try? FileManager.default.removeItem(at: maildir)
        try? FileManager.default.removeItem(at: errorLog)
    }

    private static func freePort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).wait()
        defer { try? channel.close().wait() }
        guard let port = channel.localAddress?.port else { throw TestFailure("no free port") }
        return port
    }
}

/// The decoded parts of a `multipart/alternative` message Parley sent.
struct ReceivedMail {
    var headers: [String: String]
    var text: String
    var html: String

    init(_ raw: String) throws {
        let normalized = raw.replacingOccurrences(of: "\r\n", with: "\n")
        guard let split = normalized.range(of: "\n\n") else { throw TestFailure("no header end") }
        var headers: [String: String] = [:]
        var last: String?
        for line in normalized[..<split.lowerBound].split(separator: "\n") {
            if line.first == " " || line.first == "\t", let key = last {
                headers[key, default: ""] += line.trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                let key = line[..<colon].lowercased()
                headers[key] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                last = key
            }
        }
        self.headers = headers
        func part(_ type: String) throws -> String {
            guard let start = normalized.range(of: "Content-Type: \(type); charset=utf-8\nContent-Transfer-Encoding: base64\n\n") else {
                throw TestFailure("no \(type) part")
            }
            let rest = normalized[start.upperBound...]
            let end = rest.range(of: "\n--")?.lowerBound ?? rest.endIndex
            let base64 = rest[..<end].replacingOccurrences(of: "\n", with: "")
            guard let data = Data(base64Encoded: base64) else { throw TestFailure("bad base64 in \(type)") }
            return String(decoding: data, as: UTF8.self)
        }
        text = try part("text/plain")
        html = try part("text/html")
    }

    /// A header's RFC 2047 words decoded.
    func decoded(_ name: String) -> String {
        (headers[name] ?? "").components(separatedBy: "?=").compactMap { piece -> String? in
            guard let start = piece.range(of: "=?UTF-8?B?") else { return piece.trimmingCharacters(in: .whitespaces).isEmpty ? nil : piece }
            let prefix = piece[..<start.lowerBound]
            let data = Data(base64Encoded: String(piece[start.upperBound...])) ?? Data()
            return prefix.trimmingCharacters(in: .whitespaces) + String(decoding: data, as: UTF8.self)
        }.joined()
    }
}
