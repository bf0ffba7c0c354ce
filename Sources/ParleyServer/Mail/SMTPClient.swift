import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Why a delivery attempt failed. `isPermanent` (a 5xx reply) means retrying will not help.
struct SMTPError: Error, CustomStringConvertible, Sendable {
    var description: String
    var isPermanent: Bool
}

/// Sends one message per connection over SMTP (RFC 5321): EHLO, AUTH PLAIN when a user is set
/// (TLS only), MAIL FROM, RCPT TO, DATA with dot-stuffing, QUIT. Enough for a relay or a
/// submission server; one message at a time, so no pipelining.
struct SMTPClient: Sendable {
    let configuration: SMTPConfiguration

    func send(_ message: MailMessage) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await deliver(message) }
            group.addTask {
                try await Task.sleep(for: configuration.timeout)
                throw SMTPError(description: "no answer from \(configuration.host) within \(configuration.timeout)", isPermanent: false)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func deliver(_ message: MailMessage) async throws {
        let tls = try configuration.security == .tls ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let host = configuration.host
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: host))
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            var replies = SMTPReplyReader(inbound.makeAsyncIterator())
            func command(_ line: String, expect: Set<Int>) async throws {
                try await outbound.write(ByteBuffer(string: line + "\r\n"))
                try await replies.expect(expect, after: line.hasPrefix("AUTH") ? "AUTH" : line)
            }
            try await replies.expect([220], after: "connecting")
            try await command("EHLO \(Self.heloName)", expect: [250])
            if let user = configuration.username, let password = configuration.password {
                let token = Data("\u{0}\(user)\u{0}\(password)".utf8).base64EncodedString()
                try await command("AUTH PLAIN \(token)", expect: [235])
            }
            try await command("MAIL FROM:<\(message.from.email)>", expect: [250])
            try await command("RCPT TO:<\(message.to.email)>", expect: [250, 251])
            try await command("DATA", expect: [354])
            try await outbound.write(ByteBuffer(string: Self.dotStuffed(message.rendered()) + ".\r\n"))
            try await replies.expect([250], after: "the message")
            try? await outbound.write(ByteBuffer(string: "QUIT\r\n"))
        }
    }

    /// The name this host gives in EHLO.
    static let heloName = ProcessInfo.processInfo.hostName.isEmpty ? "parley.localhost" : ProcessInfo.processInfo.hostName

    /// Lines starting with a dot get another (RFC 5321 §4.5.2), so none ends the message early.
    static func dotStuffed(_ text: String) -> String {
        var stuffed = text.replacingOccurrences(of: "\r\n.", with: "\r\n..")
        if stuffed.hasPrefix(".") { stuffed = "." + stuffed }
        if !stuffed.hasSuffix("\r\n") { stuffed += "\r\n" }
        return stuffed
    }
}

/// Reads SMTP replies (`250-…` continues, `250 …` ends) from the connection's bytes.
struct SMTPReplyReader {
    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private var pending = ""

    init(_ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
        self.iterator = iterator
    }

    /// Reads one whole reply and checks its code. A 4xx is temporary, a 5xx permanent.
    mutating func expect(_ codes: Set<Int>, after what: String) async throws {
        var text: [String] = []
        while true {
            let line = try await nextLine()
            text.append(line)
            guard line.count >= 3, let code = Int(line.prefix(3)) else {
                throw SMTPError(description: "not an SMTP reply after \(what): \(line.prefix(100))", isPermanent: false)
            }
            if line.count > 3, line[line.index(line.startIndex, offsetBy: 3)] == "-" { continue }
            guard codes.contains(code) else {
                throw SMTPError(description: "\(what): \(text.joined(separator: " ").prefix(300))", isPermanent: (500...599).contains(code))
            }
            return
        }
    }

    private mutating func nextLine() async throws -> String {
        while true {
            if let end = pending.range(of: "\r\n") {
                let line = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                return line
            }
            guard pending.utf8.count < 64 * 1024 else { throw SMTPError(description: "an SMTP reply line too long", isPermanent: false) }
            guard let buffer = try await iterator.next() else {
                throw SMTPError(description: "the SMTP server closed the connection", isPermanent: false)
            }
            pending += String(buffer: buffer)
        }
    }
}
