import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// parleyd SIGKILLed while a file is being uploaded: nothing of it is visible, and ParleyKit's
/// outbox sends it again once parleyd is back, so the file arrives exactly once. The client
/// reaches parleyd through a relay on a fixed port, as an app reaches a load balancer.
@Suite(.timeLimit(.minutes(3)))
struct UploadCrashTests {
    @Test func sigkillDuringAnUpload_showsNothingHalfDone_andTheFileArrivesOnce() async throws {
        let executable = try BuiltExecutable.locate("parleyd", overrideVariable: "PARLEYD_PATH")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-upload-crash-\(UUID().uuidString)")
        let logDirectory = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let http = DurabilityHTTP(maxConnections: 4)
        let server = ParleydSupervisor(executable: executable, dataDirectory: root.appendingPathComponent("data"), logDirectory: logDirectory, http: http)
        defer { server.killNow() }
        let first = try await server.start()
        let app = try #require(first.appID.flatMap(AppID.init(validating:)))
        let relay = try await TCPRelay.start(target: try #require(first.baseURL.port))
        defer { Task { await relay.stop() } }

        // A 20 MB file (under the default policy): long enough on the wire to be cut off in the middle.
        let file = root.appendingPathComponent("recording.mp4")
        var bytes = Data([0, 0, 0, 0x18]) + Data("ftypisom".utf8) + Data(repeating: 0, count: 12)
        bytes += Data((0..<20_000_000).map { UInt8(truncatingIfNeeded: $0 &* 29) })
        try bytes.write(to: file)

        var configuration = ParleyConfiguration(serverURL: URL(string: "http://127.0.0.1:\(relay.port)")!, appID: app)
        configuration.httpTransport = NIOHTTPTransport()
        configuration.storage = .directory(root.appendingPathComponent("client"))
        configuration.reconnectPolicy = ReconnectPolicy(initialDelay: .milliseconds(50), multiplier: 1, maximumDelay: .milliseconds(200), jitter: 0)
        let client = ParleyClient(configuration: configuration, transport: NIOWebSocketTransport())
        try await client.start()
        let conversation = try await client.openConversation(subject: "a long video")
        _ = try await client.attachmentPolicy()
        let pending = try await client.sendFile(at: file, in: conversation.id)

        // Kill when a quarter is on the wire.
        for await progress in await client.uploadProgress(of: pending.id) where progress.fraction > 0.25 { break }
        try await server.kill()
        let second = try await server.start()
        relay.target = try #require(second.baseURL.port)

        let model = try await client.conversation(conversation.id)
        let deadline = ContinuousClock.now + .seconds(90)
        while await !model.messages.contains(where: { $0.id == pending.id && $0.deliveryState == .sent }) {
            guard ContinuousClock.now < deadline else { throw DurabilityError("the file never arrived after the restart") }
            await client.reconnectNow()
            try await Task.sleep(for: .milliseconds(100))
        }
        let delivered = try #require(await model.messages.first { $0.id == pending.id }?.attachment)
        let token = try #require(try FileStorage(directory: root.appendingPathComponent("client")).loadSecrets()?.token)
        let (status, body) = try await http.request(
            "GET", second.baseURL.appendingPathComponent("v1/conversations/\(conversation.id)/events"), token: token, timeout: 10)
        #expect(status == 200)
        let files = try ParleyJSON.decode(EventPage.self, from: body).events.compactMap(\.message?.attachment)
        print("upload crash: \(files.count) file(s) stored after the kill and the retry")
        #expect(files.count == 1 && files.first?.sha256 == SHA256Hex.of(bytes) && files.first == delivered)
        await client.stop()
    }
}
