import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// The connection guard on a real server, through raw sockets: frames without a mask close the
/// socket with 1002 (RFC 6455 §5.1), whether they come after the `101` or with the upgrade request;
/// masked frames go through either way.
@Suite(.timeLimit(.minutes(2)))
struct ConnectionGuardTests {
    static let switchingProtocols = Array("HTTP/1.1 101 ".utf8)
    static let emptyLine = Array("\r\n\r\n".utf8)

    static func ping(_ ref: String, masked: Bool) throws -> [UInt8] {
        RawFrames.frame(Array(try ParleyJSON.encode(ClientFrame.ping(.init(ref: ref)))), masked: masked)
    }

    @Test func anUnmaskedFrameAfterTheUpgrade_closesTheSocketWith1002() async throws {
        try await withServer { server in
            let token = try await server.visitor().token
            try await RawConnection.with(port: server.port) { connection in
                try await connection.send(server.upgradeRequest(token: token))
                #expect(try await connection.read(through: Self.emptyLine).starts(with: Self.switchingProtocols))
                try await connection.send(try Self.ping("unmasked", masked: false))
                let frames = RawFrames.serverFrames(try await connection.readUntilClosed())
                #expect(frames.last?.closeCode == 1002, "\(frames.map(\.text))")
                #expect(!frames.contains { $0.text.contains("unmasked") }, "the frame was not answered")
            }
        }
    }

    @Test func anUnmaskedFrameSentWithTheUpgradeRequest_isRefusedBeforeTheServerReadsIt() async throws {
        try await withServer { server in
            let token = try await server.visitor().token
            try await RawConnection.with(port: server.port) { connection in
                try await connection.send(server.upgradeRequest(token: token) + Self.ping("early", masked: false))
                #expect(try await connection.read(through: Self.emptyLine).starts(with: Self.switchingProtocols))
                // Not even `ready`: the upgrade was called off before the socket's session began.
                #expect(RawFrames.serverFrames(try await connection.readUntilClosed()) == [RawFrames.ServerFrame(opcode: RawFrames.close, payload: [0x03, 0xEA])])
            }
        }
    }

    @Test func maskedFrames_work_withTheUpgradeRequestAndAfterIt() async throws {
        try await withServer { server in
            let token = try await server.visitor().token
            try await RawConnection.with(port: server.port) { connection in
                try await connection.send(server.upgradeRequest(token: token) + Self.ping("with-the-request", masked: true))
                #expect(try await connection.read(through: Self.emptyLine).starts(with: Self.switchingProtocols))
                // Every byte after the head is a frame: kept, to read them as frames at the end.
                var received = try await connection.read(through: Array(#""with-the-request""#.utf8))
                try await connection.send(try Self.ping("after", masked: true))
                received += try await connection.read(through: Array(#""after""#.utf8))
                try await connection.send(RawFrames.frame(opcode: RawFrames.close, [0x03, 0xE8], masked: true))
                let frames = RawFrames.serverFrames(received + (try await connection.readUntilClosed()))
                #expect(frames.filter { $0.text.contains(#""type":"pong""#) }.count == 2, "\(frames.map(\.text))")
                #expect(frames.last?.closeCode == 1000, "\(frames.map(\.text))")
            }
        }
    }

    @Test func frameErrorsOtherThanTheMask_areStillTheWebSocketLayers() async throws {
        // A masked close frame with a 1-byte payload is a protocol error the guard does not judge.
        try await withServer { server in
            let token = try await server.visitor().token
            try await RawConnection.with(port: server.port) { connection in
                try await connection.send(server.upgradeRequest(token: token))
                #expect(try await connection.read(through: Self.emptyLine).starts(with: Self.switchingProtocols))
                try await connection.send(RawFrames.frame(opcode: RawFrames.close, [0x03], masked: true))
                let frames = RawFrames.serverFrames(try await connection.readUntilClosed())
                #expect(frames.last?.closeCode == 1002)
            }
        }
    }
}
