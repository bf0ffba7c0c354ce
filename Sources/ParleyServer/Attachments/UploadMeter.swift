import Crypto
import Foundation
import NIOCore
import ParleyCore

/// What an upload turned out to be while it streamed to disk: its size, its SHA-256 and its first
/// bytes (for ``FileType``). Filled by ``MeteredBody`` as the bytes pass.
final class UploadMeter: Sendable {
    private struct State {
        var hasher = SHA256()
        var size: Int64 = 0
        var head: [UInt8] = []
    }

    private let state = Locked(State())
    /// The most bytes accepted; one more fails the upload.
    let limit: Int64

    init(limit: Int64) {
        self.limit = limit
    }

    /// Counts and hashes a buffer. - Throws: ``TooLarge`` past ``limit``.
    func pass(_ buffer: ByteBuffer) throws {
        try state.withLock { state in
            state.size += Int64(buffer.readableBytes)
            guard state.size <= limit else { throw TooLarge() }
            buffer.withUnsafeReadableBytes { bytes in
                state.hasher.update(bufferPointer: bytes)
                if state.head.count < FileType.sniffLength {
                    state.head += bytes.prefix(FileType.sniffLength - state.head.count)
                }
            }
        }
    }

    var size: Int64 { state.withLock { $0.size } }
    var head: [UInt8] { state.withLock { $0.head } }
    /// The SHA-256, lowercase hex (call once the body has ended).
    var sha256: String { state.withLock { $0.hasher.finalize().hexString } }

    /// The SHA-256 of bytes in lowercase hex (as ``sha256`` gives it).
    static func hex(of data: Data) -> String { SHA256.hash(data: data).hexString }

    /// The upload went past the limit.
    struct TooLarge: Error {}
}

/// A request body that passes every buffer through an ``UploadMeter`` on its way to disk.
struct MeteredBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let meter: UploadMeter

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let meter: UploadMeter

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await base.next() else { return nil }
            try meter.pass(buffer)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), meter: meter) }
}
