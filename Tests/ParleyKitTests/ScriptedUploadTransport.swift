import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import ParleyKit

/// URLSession's HTTP, with file uploads the test scripts: the first `breaking` uploads fail as a
/// dropped connection would; with `reports`, an upload waits for ``release()`` and then reports its
/// progress in that many steps, as fast as it can, before it sends the file.
final class ScriptedUploadTransport: HTTPTransport {
    private let inner = URLSessionHTTPTransport()
    private let breaking: Int
    private let reports: Int
    private let attempts = Locked(0)
    private let (gate, opener) = AsyncStream.makeStream(of: Never.self)

    init(breaking: Int = 0, reports: Int = 0) {
        self.breaking = breaking
        self.reports = reports
    }

    /// The uploads tried so far.
    var uploads: Int { attempts.withLock { $0 } }

    /// Lets the waiting upload go on.
    func release() { opener.finish() }

    func send(_ request: URLRequest, pinnedKeys: [PublicKeyPin]) async throws -> (Data, HTTPURLResponse) {
        try await inner.send(request, pinnedKeys: pinnedKeys)
    }

    func upload(_ request: URLRequest, fromFile file: URL, pinnedKeys: [PublicKeyPin], progress: @escaping @Sendable (Int64) -> Void) async throws
        -> (Data, HTTPURLResponse) {
        let attempt = attempts.withLock { count in
            count += 1
            return count
        }
        if attempt <= breaking { throw URLError(.networkConnectionLost) }
        if reports > 0 {
            for await _ in gate {}
            let size = Int64(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0)
            for step in 1...Int64(reports) { progress(size * step / Int64(reports)) }
        }
        return try await inner.upload(request, fromFile: file, pinnedKeys: pinnedKeys) { _ in }
    }
}
