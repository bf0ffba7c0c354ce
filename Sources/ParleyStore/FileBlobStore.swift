import Dispatch
import Foundation

/// Blobs as files in a directory of their own, `<root>/<first two hex digits>/<sha256>`, for the
/// SQLite store: a blob is fsync'd and renamed into place (and its directory fsync'd) before the
/// message that names it is committed, so a committed attachment's bytes survive a crash.
public struct FileBlobStore: BlobStore {
    /// The blobs' directory.
    public let root: URL
    public var stagingDirectory: URL { root.appendingPathComponent("staging", isDirectory: true) }

    /// How many bytes a read hands over at a time.
    static let chunkSize = 256 << 10

    /// A store in `root`, created when missing (with its staging directory).
    /// - Parameter root: the directory.
    /// - Throws: when the directory cannot be made.
    public init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root.appendingPathComponent("staging", isDirectory: true), withIntermediateDirectories: true)
    }

    func path(_ sha256: String) throws -> URL {
        // Only our own hashes name files: 64 lowercase hex digits, nothing a path could be made of.
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw StoreError.invalidInput("not a SHA-256: \(sha256)")
        }
        return root.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true).appendingPathComponent(sha256)
    }

    public func put(stagedFile: URL, sha256: String, size: Int64, at date: Date) async throws {
        let target = try path(sha256)
        try await Self.blocking {
            let manager = FileManager.default
            if manager.fileExists(atPath: target.path) {
                try? manager.removeItem(at: stagedFile)
                try? manager.setAttributes([.modificationDate: date], ofItemAtPath: target.path)
                return
            }
            // The file's time is when it was stored, by the server's clock (the sweep reads it).
            try manager.setAttributes([.modificationDate: date], ofItemAtPath: stagedFile.path)
            try Self.fsync(stagedFile)
            let folder = target.deletingLastPathComponent()
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            guard rename(stagedFile.path, target.path) == 0 else { throw StoreError.invalidInput("cannot store the file: errno \(errno)") }
            try Self.fsync(folder)
            try Self.fsync(root)
        }
    }

    public func read(sha256: String, range: Range<Int64>) -> BlobChunks {
        BlobChunks {
            let reader = FileChunkReader(path: try? path(sha256), sha256: sha256, range: range)
            return { try await reader.next() }
        }
    }

    public func contains(sha256: String) async throws -> Bool {
        FileManager.default.fileExists(atPath: try path(sha256).path)
    }

    public func delete(sha256: String, storedBefore date: Date) async throws {
        let target = try path(sha256)
        try await Self.blocking {
            let modified = (try? FileManager.default.attributesOfItem(atPath: target.path)[.modificationDate] as? Date) ?? .distantFuture
            guard modified < date else { return }
            if unlink(target.path) != 0 && errno != ENOENT { throw StoreError.invalidInput("cannot remove a stored file: errno \(errno)") }
        }
    }

    public func hashes(storedBefore date: Date) async throws -> [String] {
        try await Self.blocking {
            let manager = FileManager.default
            var found: [String] = []
            for folder in try manager.contentsOfDirectory(atPath: root.path) where folder.utf8.count == 2 {
                for name in (try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [] {
                    let file = root.appendingPathComponent(folder).appendingPathComponent(name)
                    let modified = (try? manager.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? .distantFuture
                    if modified < date && (try? path(name)) != nil { found.append(name) }
                }
            }
            return found
        }
    }

    static func fsync(_ url: URL) throws {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { throw StoreError.invalidInput("cannot open \(url.lastPathComponent): errno \(errno)") }
        defer { close(fd) }
        guard Foundation.fsync(fd) == 0 else { throw StoreError.invalidInput("cannot sync \(url.lastPathComponent): errno \(errno)") }
    }

    /// Runs blocking file work off Swift's cooperative threads.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// Reads a file's range a chunk at a time, off Swift's cooperative threads; one iteration's state.
final class FileChunkReader: @unchecked Sendable {
    // @unchecked: `next()` is called by one iterator, one call at a time (AsyncIteratorProtocol);
    // the lock makes that explicit should a caller ever misuse it.
    private let lock = NSLock()
    private let path: URL?
    private let sha256: String
    private var handle: FileHandle?
    private var remaining: Int64
    private let start: Int64

    init(path: URL?, sha256: String, range: Range<Int64>) {
        self.path = path
        self.sha256 = sha256
        remaining = Int64(range.count)
        start = range.lowerBound
    }

    deinit { try? handle?.close() }

    func next() async throws -> Data? {
        try await FileBlobStore.blocking { [self] in
            lock.lock()
            defer { lock.unlock() }
            guard remaining > 0 else {
                try? handle?.close()
                handle = nil
                return nil
            }
            if handle == nil {
                guard let path else { throw StoreError.invalidInput("not a SHA-256: \(sha256)") }
                let opened = try FileHandle(forReadingFrom: path)
                try opened.seek(toOffset: UInt64(start))
                handle = opened
            }
            let chunk = try handle?.read(upToCount: Int(min(Int64(FileBlobStore.chunkSize), remaining))) ?? Data()
            guard !chunk.isEmpty else { throw StoreError.invalidInput("the stored file \(sha256) is shorter than expected") }
            remaining -= Int64(chunk.count)
            return chunk
        }
    }
}
