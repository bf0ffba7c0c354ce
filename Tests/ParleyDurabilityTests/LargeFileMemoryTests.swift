import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// A 50 MB file up to and down from a parleyd process, streamed from and to files by
/// NIOHTTPTransport: parleyd's resident memory, sampled throughout, grows by far less than the file.
/// parleyd runs as a process of its own so that nothing else (other tests) counts in its memory.
@Suite(.timeLimit(.minutes(3)))
struct LargeFileMemoryTests {
    /// A process's resident set in bytes, from /proc (nil when it cannot be read).
    static func resident(_ pid: Int32) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int64($0) }) else { return nil }
        return kilobytes * 1024
    }

    @Test func aFiftyMegabyteFile_streamsThroughParleyd_inBoundedMemory() async throws {
        let executable = try BuiltExecutable.locate("parleyd", overrideVariable: "PARLEYD_PATH")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-large-\(UUID().uuidString)")
        let logDirectory = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let http = DurabilityHTTP(maxConnections: 4)
        let server = ParleydSupervisor(executable: executable, dataDirectory: root.appendingPathComponent("data"), logDirectory: logDirectory,
                                       http: http, extraArguments: ["--admin-token", "large-file-token"])
        defer { server.killNow() }
        let banner = try await server.start()
        let app = try #require(banner.appID)
        let pid = try #require(server.pid)

        // Written in pieces, so the test never holds the file either.
        let size = 50_000_000
        let source = root.appendingPathComponent("video.mp4")
        try #require(FileManager.default.createFile(atPath: source.path, contents: nil), "the source file is created")
        let writer = try FileHandle(forWritingTo: source)
        let header = Data([0, 0, 0, 0x18]) + Data("ftypisom".utf8) + Data(repeating: 0, count: 12)
        try writer.write(contentsOf: header)
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        var written = header.count
        while written < size {
            let piece = block.prefix(size - written)
            try writer.write(contentsOf: piece)
            written += piece.count
        }
        try writer.close()

        let base = banner.baseURL
        let policy = try ParleyJSON.encode(AttachmentPolicy(maxBytes: 60_000_000))
        let (set, _) = try await http.request("PUT", base.appendingPathComponent("v1/admin/apps/\(app)/attachments"), token: "large-file-token", body: policy)
        #expect(set == 200)
        let (_, sessionBody) = try await http.request("POST", base.appendingPathComponent("v1/visitor/session"),
                                                      body: try ParleyJSON.encode(VisitorSessionRequest(appID: AppID(rawValue: app), deviceID: "large-file-device")))
        let visitor = try ParleyJSON.decode(VisitorSession.self, from: sessionBody).token
        let (_, opened) = try await http.request("POST", base.appendingPathComponent("v1/conversations"), token: visitor,
                                                 body: try ParleyJSON.encode(OpenConversationRequest()))
        let conversation = try ParleyJSON.decode(Conversation.self, from: opened).id

        let baseline = try #require(Self.resident(pid))
        let peak = Peak(baseline)
        let sampler = Task {
            while !Task.isCancelled {
                if let now = Self.resident(pid) { await peak.see(now) }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        let transport = NIOHTTPTransport()
        var upload = URLRequest(url: URL(string: "\(base)/v1/conversations/\(conversation)/attachments?name=video.mp4&client_message_id=big")!)
        upload.httpMethod = "POST"
        upload.setValue("Bearer \(visitor)", forHTTPHeaderField: "Authorization")
        upload.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let started = ContinuousClock.now
        let (body, response) = try await transport.upload(upload, fromFile: source, pinnedKeys: []) { _ in }
        let uploadTime = ContinuousClock.now - started
        #expect(response.statusCode == 201, "\(String(decoding: body, as: UTF8.self))")
        let file = try #require(try ParleyJSON.decode(SendMessageResponse.self, from: body).event.message?.attachment)
        #expect(file.size == Int64(size) && file.contentType == "video/mp4")

        let copy = root.appendingPathComponent("copy.mp4")
        var download = URLRequest(url: URL(string: "\(base)/v1/conversations/\(conversation)/attachments/\(file.id)")!)
        download.setValue("Bearer \(visitor)", forHTTPHeaderField: "Authorization")
        let downloadStarted = ContinuousClock.now
        let (_, downloaded) = try await transport.download(download, toFile: copy, pinnedKeys: []) { _ in }
        let downloadTime = ContinuousClock.now - downloadStarted
        sampler.cancel()
        #expect(downloaded.statusCode == 200)
        #expect(try SHA256Hex.of(file: copy) == file.sha256)

        let growth = await peak.highest - baseline
        print("50 MB file through parleyd: upload \(uploadTime), download \(downloadTime); parleyd's resident memory grew at most \(growth / 1_000_000) MB over \(baseline / 1_000_000) MB")
        #expect(growth < 25_000_000, "parleyd held the file (50 MB) in memory: its resident set grew by \(growth) bytes")
    }
}

/// The highest value seen.
actor Peak {
    private(set) var highest: Int64
    init(_ start: Int64) { highest = start }
    func see(_ value: Int64) { highest = max(highest, value) }
}
