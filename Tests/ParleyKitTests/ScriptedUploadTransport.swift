import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore
import ParleyKit

/// URLSession's HTTP, with file uploads the test scripts: the first `breaking` uploads fail as a
/// dropped connection would; with `reports`, an upload waits for ``release()`` and then reports its
/// progress in that many steps, as fast as it can, before it sends the file; with `pausingAfter`,
/// it stops after that step until the next ``release()``.
final class ScriptedUploadTransport: HTTPTransport {
    private let inner = URLSessionHTTPTransport()
    private let breaking: Int
    private let reports: Int
    private let pausingAfter: Int?
    private let attempts = Locked(0)
    private let (releases, releaser) = AsyncStream.makeStream(of: Void.self)

    init(breaking: Int = 0, reports: Int = 0, pausingAfter: Int? = nil) {
        self.breaking = breaking
        self.reports = reports
        self.pausingAfter = pausingAfter
    }

    /// The uploads tried so far.
    var uploads: Int { attempts.withLock { $0 } }

    /// Lets the waiting upload go on, to its pause or its end.
    func release() { releaser.yield() }

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
            var released = releases.makeAsyncIterator()
            await released.next()
            let size = Int64(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0)
            for step in 1...reports {
                progress(size * Int64(step) / Int64(reports))
                if step == pausingAfter { await released.next() }
            }
        }
        return try await inner.upload(request, fromFile: file, pinnedKeys: pinnedKeys) { _ in }
    }
}
