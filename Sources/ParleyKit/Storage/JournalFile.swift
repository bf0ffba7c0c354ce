import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only file of checksummed records, the layer under ``FileStorage``'s history and outbox.
///
/// Layout: the 8-byte header `PRLYLOG1`, then records, each a 4-byte big-endian payload length, the
/// payload's CRC-32 (4 bytes, big-endian) and the payload (one JSON value). A record is appended with
/// one `write`, so a kill mid-write leaves at most one short or mismatching record at the end;
/// reading stops there without failing, and the first append cuts it off before writing, so records
/// written later are never hidden behind it.
///
/// Not thread-safe: its owner holds it under a lock.
struct JournalFile {
    static let header = Array("PRLYLOG1".utf8)
    /// A length above this is garbage, not a record (the biggest record is far smaller).
    static let maximumRecordBytes = 64 << 20
    static let recordOverhead = 8

    let url: URL
    private var descriptor: Int32 = -1
    /// Where the last whole record ends (0 for an empty, missing or torn-header file).
    private(set) var length = 0
    /// True once the file has been read, so `length` is known.
    private(set) var isRead = false
    /// True when the file was created by this instance and its directory entry is not synced yet.
    private var needsDirectorySync = false

    init(url: URL) {
        self.url = url
    }

    private var name: String { url.lastPathComponent }

    /// Whether the file exists.
    var exists: Bool { FileManager.default.fileExists(atPath: url.path) }

    /// Every whole record, in order: its payload and where it ends in the file. Remembers where the
    /// last one ends. A missing file has none.
    /// - Throws: ``ParleyError/storage(_:)`` when the file cannot be read or is not a journal.
    mutating func readRecords() throws -> [(payload: Data, end: Int)] {
        guard exists else {
            length = 0
            isRead = true
            return []
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ParleyError.storage("\(name) is unreadable: \(error)")
        }
        let records = try Self.parse(data, name: name)
        length = records.last?.end ?? (data.count >= Self.header.count ? Self.header.count : 0)
        isRead = true
        return records
    }

    /// Payloads read where they lie (`pread`), in the order given: a conversation's records without
    /// reading the rest of the journal. The ranges come from an earlier ``readRecords()``.
    /// - Throws: ``ParleyError/storage(_:)`` when the file cannot be read or is shorter.
    func read(_ ranges: [Range<Int>]) throws -> [Data] {
        guard !ranges.isEmpty else { return [] }
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ParleyError.storage("cannot open \(name): \(String(cString: strerror(errno)))") }
        defer { _ = closeDescriptor(fd) }
        return try ranges.map { range in
            var payload = Data(count: range.count)
            let count = payload.withUnsafeMutableBytes { pread(fd, $0.baseAddress, range.count, off_t(range.lowerBound)) }
            guard count == range.count else { throw ParleyError.storage("\(name) is shorter than its records") }
            return payload
        }
    }

    /// Forgets the records after `end` (they cannot be used): the next append cuts them off first.
    mutating func discard(after end: Int) {
        guard end < length else { return }
        length = end
        close()
    }

    /// Splits a journal's bytes into records, stopping at the first torn or damaged one.
    static func parse(_ data: Data, name: String) throws -> [(payload: Data, end: Int)] {
        // A file shorter than its header was cut while being created: it holds nothing yet.
        guard data.count >= header.count else { return [] }
        let base = data.startIndex
        guard data[base..<(base + header.count)].elementsEqual(header) else {
            throw ParleyError.storage("\(name) is not a Parley journal")
        }
        var records: [(payload: Data, end: Int)] = []
        var offset = header.count
        while data.count - offset >= recordOverhead {
            let recordLength = Int(data.readBigEndianUInt32(at: base + offset))
            let checksum = data.readBigEndianUInt32(at: base + offset + 4)
            let start = offset + recordOverhead
            guard recordLength <= maximumRecordBytes, data.count - start >= recordLength else { break }
            let payload = data[(base + start)..<(base + start + recordLength)]
            guard CRC32.checksum(payload) == checksum else { break }
            offset = start + recordLength
            records.append((payload, offset))
        }
        return records
    }

    /// The framed bytes of a record: length, checksum, payload.
    static func frame(_ payload: Data, into buffer: inout Data) {
        buffer.appendBigEndian(UInt32(payload.count))
        buffer.appendBigEndian(CRC32.checksum(payload))
        buffer.append(payload)
    }

    /// Appends records with one `write`; with `sync`, the file (and, when new, its directory entry)
    /// is on disk before this returns. Returns the bytes written.
    /// - Throws: ``ParleyError/storage(_:)`` when the file cannot be opened or written; nothing of
    ///   the failed records then stays in the file.
    @discardableResult
    mutating func append(_ payloads: [Data], sync: Bool) throws -> Int {
        try openForAppending()
        var buffer = Data()
        if length == 0 { buffer.append(contentsOf: Self.header) }
        for payload in payloads { Self.frame(payload, into: &buffer) }
        do {
            try Self.writeAll(buffer, to: descriptor)
            if sync { try Self.check(fsync(descriptor), "fsync") }
        } catch {
            // Cut whatever part of the records reached the file, so the next append starts clean;
            // closed, so that the next append checks the file's size again should this fail too.
            _ = ftruncate(descriptor, off_t(length))
            close()
            throw ParleyError.storage("cannot write \(name): \(error)")
        }
        length += buffer.count
        if sync && needsDirectorySync {
            try Self.syncDirectory(of: url)
            needsDirectorySync = false
        }
        return buffer.count
    }

    /// Replaces the whole file with these records, atomically: a temporary file is written and
    /// synced, renamed over the journal, and the directory synced. A kill at any point leaves
    /// either the old journal or the new one.
    /// - Throws: ``ParleyError/storage(_:)`` when a step fails; the old journal then stays.
    mutating func replace(with payloads: [Data]) throws {
        var buffer = Data(Self.header)
        for payload in payloads { Self.frame(payload, into: &buffer) }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(name + ".tmp")
        do {
            let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            try Self.check(fd, "open")
            defer { _ = closeDescriptor(fd) }
            try Self.writeAll(buffer, to: fd)
            try Self.check(fsync(fd), "fsync")
            try Self.check(rename(temporary.path, url.path), "rename")
            try Self.syncDirectory(of: url)
        } catch {
            _ = unlink(temporary.path)
            throw ParleyError.storage("cannot rewrite \(name): \(error)")
        }
        close()
        length = buffer.count
        isRead = true
    }

    /// Closes the file (the next append opens it again).
    mutating func close() {
        if descriptor >= 0 { _ = closeDescriptor(descriptor) }
        descriptor = -1
    }

    /// Opens the file for appending, creating it when missing, and cuts a torn last record off.
    private mutating func openForAppending() throws {
        guard descriptor < 0 else { return }
        if !isRead { _ = try readRecords() }
        let existed = exists
        var fd: Int32 = -1
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            try Self.check(fd, "open")
            var status = stat()
            if fstat(fd, &status) == 0, Int(status.st_size) < length {
                // Shorter than what was read: changed behind this instance's back; read it again.
                _ = try readRecords()
            }
            if fstat(fd, &status) == 0, Int(status.st_size) > length {
                // Bytes past the last whole record: a torn record, or a header cut short.
                try Self.check(ftruncate(fd, off_t(length)), "ftruncate")
            }
            descriptor = fd
        } catch {
            if fd >= 0 { _ = closeDescriptor(fd) }
            throw ParleyError.storage("cannot open \(name): \(error)")
        }
        needsDirectorySync = !existed
    }

    private static func writeAll(_ buffer: Data, to fd: Int32) throws {
        try buffer.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    try check(-1, "write")
                }
                offset += written
            }
        }
    }

    private static func syncDirectory(of url: URL) throws {
        let fd = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        try check(fd, "open directory")
        defer { _ = closeDescriptor(fd) }
        try check(fsync(fd), "fsync directory")
    }

    private static func check(_ result: Int32, _ call: String) throws {
        guard result < 0 else { return }
        throw SystemCallError(call: call, code: errno)
    }
}

/// `close(2)`, named apart from `JournalFile.close()`.
private func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    return Darwin.close(fd)
    #elseif canImport(Musl)
    return Musl.close(fd)
    #else
    return Glibc.close(fd)
    #endif
}

/// A failed system call and its `errno`.
private struct SystemCallError: Error, CustomStringConvertible {
    let call: String
    let code: Int32

    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

extension Data {
    fileprivate func readBigEndianUInt32(at index: Index) -> UInt32 {
        var value: UInt32 = 0
        for byte in self[index..<(index + 4)] { value = value << 8 | UInt32(byte) }
        return value
    }

    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }
}
