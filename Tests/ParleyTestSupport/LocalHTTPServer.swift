import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A small HTTP server on 127.0.0.1 with routes a test gives: an app's auth service, a JWKS host,
/// a webhook receiver. Started on a free port; stopped by ``stop()``.
public final class LocalHTTPServer: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Starts a server whose routes `routes` adds.
    public static func start(_ routes: (Router<BasicRequestContext>) -> Void) async throws -> LocalHTTPServer {
        let router = Router()
        routes(router)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let logger = Logger(label: "local-http", factory: { _ in SwiftLogNoOpLogHandler() })
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        guard let port = await ports.first(where: { _ in true }), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return LocalHTTPServer(port: port, group: group, task: task)
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Stops the server and waits until it has.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
