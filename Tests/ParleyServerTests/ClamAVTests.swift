import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// Uploads scanned by a real ClamAV daemon (Debian's `clamav-daemon`, installed by `.ci/run`),
/// started by the test with a signature database of its own: the EICAR test file's MD5, since no
/// virus database can be downloaded here.
@Suite(.timeLimit(.minutes(2)))
struct ClamAVTests {
    /// The EICAR anti-virus test file (harmless; every scanner is meant to find it).
    static let eicar = Data(#"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"#.utf8)

    /// A clamd of the test's own, with only the EICAR signature.
    final class Daemon {
        let folder: URL
        let process: SpawnedProcess
        var socket: String { folder.appendingPathComponent("clamd.sock").path }

        init() throws {
            let clamd = ["/usr/sbin/clamd", "/usr/bin/clamd"].first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let clamd else { throw TestFailure("clamd is not installed (apt install clamav-daemon; .ci/run does)") }
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-clamd-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "44d88612fea8a8f36de82e1278abb02f:68:Eicar-Test-Signature\n".write(to: folder.appendingPathComponent("parley-test.hdb"), atomically: true, encoding: .utf8)
            try """
                DatabaseDirectory \(folder.path)
                LocalSocket \(folder.path)/clamd.sock
                Foreground yes
                TemporaryDirectory \(folder.path)
                StreamMaxLength 100M
                """.write(to: folder.appendingPathComponent("clamd.conf"), atomically: true, encoding: .utf8)
            process = try SpawnedProcess(URL(fileURLWithPath: clamd), arguments: ["-c", folder.appendingPathComponent("clamd.conf").path])
        }

        /// Waits until clamd answers `PING` (it listens once its database is loaded).
        func ready() async throws {
            for _ in 0..<600 {
                if (try? await ClamAVScanner(socketPath: socket, timeout: 2).ping()) == true { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure("clamd did not start")
        }

        func stop() {
            process.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func anInfectedUpload_isRefused_aCleanOnePasses_andADownScannerFailsClosed() async throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        try await daemon.ready()
        try await withServer(configure: { $0.malwareScanner = ClamAVScanner(socketPath: daemon.socket) }) { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            func upload(_ data: Data, _ id: String) async throws -> TestHTTP.Reply {
                try await server.http.request("POST", "/v1/conversations/\(conversation.id)/attachments?name=notes.txt&client_message_id=\(id)",
                                              body: data, token: visitor.token, headers: ["Content-Type": "application/octet-stream"])
            }
            let infected = try await upload(Self.eicar, "bad")
            #expect(infected.status == 422 && infected.error?.error.code == "malware_detected")
            let clean = try await upload(Data("all good here\n".utf8), "good")
            #expect(clean.status == 201)
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=0", token: visitor.token, as: EventPage.self)
            #expect(page.events.compactMap(\.message?.attachment).map(\.name) == ["notes.txt"])
            #expect(try await server.store.blobs.hashes(storedBefore: .distantFuture).count == 1, "the infected file was not kept")

            daemon.process.stop()
            let unscanned = try await upload(Data("more\n".utf8), "later")
            #expect(unscanned.status == 503 && unscanned.error?.error.code == "scanner_unavailable")
        }
    }

    @Test func clamdAnswers_areReadStrictly() throws {
        #expect(try ClamAVScanner.verdict("stream: OK") == nil)
        #expect(try ClamAVScanner.verdict("stream: Eicar-Test-Signature FOUND") == "Eicar-Test-Signature")
        #expect(throws: (any Error).self) { try ClamAVScanner.verdict("INSTREAM size limit exceeded. ERROR") }
        #expect(throws: (any Error).self) { try ClamAVScanner.verdict("") }
    }
}
