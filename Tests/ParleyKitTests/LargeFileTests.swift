import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// A 50 MB file up and down through the real server, streamed on both sides: the process's
/// resident memory, sampled throughout, grows by far less than the file.
@Suite(.timeLimit(.minutes(3)))
struct LargeFileTests {
    /// The resident set of this process, in bytes (Linux's /proc; nil elsewhere).
    static func residentBytes() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int64($0) }) else { return nil }
        return pages * Int64(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test func aFiftyMegabyteFile_streamsUpAndDown_inBoundedMemory() async throws {
        let size = 50_000_000
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-large-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Written in pieces, so the test itself never holds the file either.
        let source = folder.appendingPathComponent("video.mp4")
        FileManager.default.createFile(atPath: source.path, contents: nil)
        let writer = try FileHandle(forWritingTo: source)
        var header = Data([0, 0, 0, 0x18]) + Data("ftypisom".utf8)
        header += Data(repeating: 0, count: (1 << 20) - header.count)
        try writer.write(contentsOf: header)
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        var written = header.count
        while written < size {
            let piece = block.prefix(size - written)
            try writer.write(contentsOf: piece)
            written += piece.count
        }
        try writer.close()

        try await withServer { server in
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/attachments", AttachmentPolicy(maxBytes: 60_000_000), token: server.adminToken)
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let transport = NIOHTTPTransport()

            let baseline = try #require(Self.residentBytes())
            let peak = ResidentPeak(baseline)
            let sampler = Task {
                while !Task.isCancelled {
                    if let now = Self.residentBytes() { await peak.see(now) }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            var upload = URLRequest(url: URL(string: "\(server.baseURL)/v1/conversations/\(conversation.id)/attachments?name=video.mp4&client_message_id=big")!)
            upload.httpMethod = "POST"
            upload.setValue("Bearer \(visitor.token)", forHTTPHeaderField: "Authorization")
            upload.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            let started = ContinuousClock.now
            let (body, response) = try await transport.upload(upload, fromFile: source, pinnedKeys: []) { _ in }
            let uploadTime = ContinuousClock.now - started
            #expect(response.statusCode == 201, "\(String(decoding: body, as: UTF8.self))")
            let file = try #require(try ParleyJSON.decode(SendMessageResponse.self, from: body).event.message?.attachment)
            #expect(file.size == Int64(size) && file.contentType == "video/mp4")

            let copy = folder.appendingPathComponent("copy.mp4")
            var download = URLRequest(url: URL(string: "\(server.baseURL)/v1/conversations/\(conversation.id)/attachments/\(file.id)")!)
            download.setValue("Bearer \(visitor.token)", forHTTPHeaderField: "Authorization")
            let downloadStarted = ContinuousClock.now
            let (_, downloaded) = try await transport.download(download, toFile: copy, pinnedKeys: []) { _ in }
            let downloadTime = ContinuousClock.now - downloadStarted
            sampler.cancel()
            #expect(downloaded.statusCode == 200)
            #expect(try SHA256Hex.of(file: copy) == file.sha256)

            let growth = await peak.highest - baseline
            print("50 MB file: upload \(uploadTime), download \(downloadTime), resident memory grew at most \(growth / 1_000_000) MB over \(baseline / 1_000_000) MB")
            #expect(growth < 25_000_000, "the file (50 MB) was held in memory: the resident set grew by \(growth) bytes")
        }
    }
}

/// The highest resident size seen.
actor ResidentPeak {
    private(set) var highest: Int64
    init(_ start: Int64) { highest = start }
    func see(_ value: Int64) { highest = max(highest, value) }
}
