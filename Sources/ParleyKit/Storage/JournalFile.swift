import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only file of checksummed, sealed records, the layer under ``FileStorage``'s history
/// and outbox.
///
/// Layout: a 32-byte header (`PRLYLOG2`, the id of the key that sealed the records, and a random
/// file id made each time the file is written whole), then records, each a 4-byte big-endian
/// length, the CRC-32 of the stored bytes (4 bytes, big-endian) and the stored bytes: the record's
/// JSON sealed with AES-GCM (``RecordSealer``: nonce, ciphertext, tag), authenticating the file's
/// role, its header and the record's offset.
///
/// The checksum and the tag answer different questions. The checksum tells a whole record from a
/// torn one: a record is appended with one `write`, so a kill mid-write leaves at most one short or
/// mismatching record at the end; reading stops there without failing, and the first append cuts
/// it off before writing, so records written later are never hidden behind it. A whole record
/// whose tag does not authenticate was not torn but altered, or copied from elsewhere: reading
/// fails with ``ParleyError`` (`storage`) naming the file and the offset, and leaves the file as it
/// is, rather than drop that record and every later one.
///
/// Earlier versions wrote `PRLYLOG1` files: the same framing around plain JSON. They are read
/// (``holdsPlaintext``), and the journals rewrite them sealed before anything else. A file whose
/// header names another key is set aside (``StorageKeyring/setAside(_:)``) and reads as missing.
///
/// Not thread-safe: its owner holds it under a lock.
struct JournalFile {
    static let magic = Array("PRLYLOG2".utf8)
    static let plaintextMagic = Array("PRLYLOG1".utf8)
    /// The magic, the key id and the file id.
    static let headerSize = 8 + RecordSealer.keyIDSize + 16
    /// A length above this is garbage, not a record (the biggest record is far smaller).
    static let maximumRecordBytes = 64 << 20
    /// The length and the checksum before each record's stored bytes.
    static let framing = 8
    /// What a record takes in the file beyond its JSON: the framing and the sealing.
    static let recordOverhead = framing + RecordSealer.overhead

    let url: URL
    /// The file's role (`history`, `outbox`), authenticated with each record.
    let role: String
    private let keyring: StorageKeyring
    private var descriptor: Int32 = -1
    /// Where the last whole record ends (0 for an empty, missing or torn-header file).
    private(set) var length = 0
    /// True once the file has been read, so `length` is known.
    private(set) var isRead = false
    /// True when the file read is a `PRLYLOG1` one, of plain records: it is to be rewritten, and
    /// nothing is appended to it.
    private(set) var holdsPlaintext = false
    /// The header of the sealed file as read or written; nil before.
    private var header: Data? {
        didSet { contextPrefix = header.map { RecordSealer.contextPrefix(role: role, header: $0) } ?? Data() }
    }
    /// The part of the header's records' contexts they share (``RecordSealer/contextPrefix(role:header:)``).
    private var contextPrefix = Data()
    /// True when the file was created by this instance and its directory entry is not synced yet.
    private var needsDirectorySync = false

    init(url: URL, role: String, keyring: StorageKeyring) {
        self.url = url
        self.role = role
        self.keyring = keyring
    }

    private var name: String { url.lastPathComponent }

    /// Whether the file exists.
    var exists: Bool { FileManager.default.fileExists(atPath: url.path) }

    /// Whether the file is a `PRLYLOG1` one (plain records), from its first bytes alone.
    /// - Throws: ``ParleyError/storage(_:)`` when the file cannot be read.
    func holdsPlaintextRecords() throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        do {
            return try (handle.read(upToCount: Self.plaintextMagic.count) ?? Data()).elementsEqual(Self.plaintextMagic)
        } catch {
            throw ParleyError.storage("\(name) is unreadable: \(error)")
        }
    }

    /// Every whole record, in order, as stored (``payload(of:)`` opens it). Remembers where
    /// the last one ends. A missing file, or one set aside for another key, has none.
    /// - Throws: ``ParleyError/storage(_:)`` when the file cannot be read or is not a journal.
    mutating func readRecords() throws -> [JournalRecord] {
        header = nil
        holdsPlaintext = false
        length = 0
        isRead = false
        guard exists else {
            isRead = true
            return []
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ParleyError.storage("\(name) is unreadable: \(error)")
        }
        let records = try records(in: data)
        isRead = true
        return records
    }

    private mutating func records(in data: Data) throws -> [JournalRecord] {
        // A file shorter than its magic was cut while being created: it holds nothing yet.
        guard data.count >= Self.magic.count else { return [] }
        let base = data.startIndex
        let magic = data[base..<(base + Self.magic.count)]
        if magic.elementsEqual(Self.plaintextMagic) {
            holdsPlaintext = true
            let locations = Self.locations(in: data, from: Self.plaintextMagic.count)
            length = locations.last?.upperBound ?? Self.plaintextMagic.count
            return locations.map { JournalRecord(stored: data[(base + $0.lowerBound)..<(base + $0.upperBound)], location: $0) }
        }
        guard magic.elementsEqual(Self.magic) else { throw ParleyError.storage("\(name) is not a Parley journal") }
        // Cut inside its header: holds nothing yet either.
        guard data.count >= Self.headerSize else { return [] }
        let header = Data(data[base..<(base + Self.headerSize)])
        let sealer = try keyring.current()
        guard header[Self.magic.count..<(Self.magic.count + RecordSealer.keyIDSize)] == sealer.keyID else {
            try keyring.setAside(url)
            return []
        }
        let locations = Self.locations(in: data, from: Self.headerSize)
        self.header = header
        length = locations.last?.upperBound ?? Self.headerSize
        return locations.map { JournalRecord(stored: data[(base + $0.lowerBound)..<(base + $0.upperBound)], location: $0) }
    }

    /// A record's payload (its JSON): opened, for a sealed file. The records are opened one at a
    /// time as their reader goes, so a start never holds every record in the clear at once.
    /// - Throws: ``ParleyError/storage(_:)`` when it does not authenticate.
    func payload(of record: JournalRecord) throws -> Data {
        guard !holdsPlaintext else { return record.stored }
        return try openRecord(record.stored, at: record.location.lowerBound, with: try keyring.current())
    }

    /// Records read where they lie (`pread`) and opened, in the order given: a conversation's
    /// records without reading the rest of the journal. The locations come from an earlier
    /// ``readRecords()`` or ``append(_:sync:)``.
    /// - Throws: ``ParleyError/storage(_:)`` when the file cannot be read, is shorter, or a record
    ///   does not authenticate.
    func read(_ locations: [Range<Int>]) throws -> [Data] {
        guard !locations.isEmpty else { return [] }
        let sealer = holdsPlaintext ? nil : try keyring.current()
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ParleyError.storage("cannot open \(name): \(String(cString: strerror(errno)))") }
        defer { _ = closeDescriptor(fd) }
        return try locations.map { location in
            var stored = Data(count: location.count)
            let count = stored.withUnsafeMutableBytes { pread(fd, $0.baseAddress, location.count, off_t(location.lowerBound)) }
            guard count == location.count else { throw ParleyError.storage("\(name) is shorter than its records") }
            guard let sealer else { return stored }
            return try openRecord(stored, at: location.lowerBound, with: sealer)
        }
    }

    /// A record of this file's header opened.
    private func openRecord(_ stored: Data, at offset: Int, with sealer: RecordSealer) throws -> Data {
        // Records are known only from a read or an append, which set the header: never returned sealed.
        guard header != nil else { throw ParleyError.storage("\(name): a record read before its header") }
        guard let payload = sealer.open(stored, context: RecordSealer.context(prefix: contextPrefix, offset: offset)) else {
            throw ParleyError.storage("\(name): the record at byte \(offset - Self.framing) does not authenticate "
                + "(altered on disk, or copied from another file); the file is left as it is")
        }
        return payload
    }

    /// Forgets the records after `end` (they cannot be used): the next append cuts them off first.
    mutating func discard(after end: Int) {
        guard end < length else { return }
        length = end
        close()
    }

    /// Where the stored bytes of each whole record lie, stopping at the first torn or damaged one.
    static func locations(in data: Data, from start: Int) -> [Range<Int>] {
        let base = data.startIndex
        var locations: [Range<Int>] = []
        var offset = start
        while data.count - offset >= framing {
            let recordLength = Int(data.readBigEndianUInt32(at: base + offset))
            let checksum = data.readBigEndianUInt32(at: base + offset + 4)
            let start = offset + framing
            guard recordLength <= maximumRecordBytes, data.count - start >= recordLength else { break }
            guard CRC32.checksum(data[(base + start)..<(base + start + recordLength)]) == checksum else { break }
            offset = start + recordLength
            locations.append(start..<offset)
        }
        return locations
    }

    /// A new header: the magic, the key's id and a random file id.
    private static func makeHeader(keyID: Data) -> Data {
        var generator = SystemRandomNumberGenerator()
        var header = Data(magic)
        header.append(keyID)
        header.append(contentsOf: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return header
    }

    /// Seals each payload at its offset and frames it: length, checksum, stored bytes. Returns
    /// where each record's stored bytes lie, for a buffer written at `offset`.
    @discardableResult
    private func seal(_ payloads: [Data], header: Data, with sealer: RecordSealer, into buffer: inout Data, at offset: Int) throws -> [Range<Int>] {
        var locations: [Range<Int>] = []
        let prefix = header == self.header ? contextPrefix : RecordSealer.contextPrefix(role: role, header: header)
        for payload in payloads {
            let start = offset + buffer.count + Self.framing
            let stored = try sealer.seal(payload, context: RecordSealer.context(prefix: prefix, offset: start))
            buffer.appendBigEndian(UInt32(stored.count))
            buffer.appendBigEndian(CRC32.checksum(stored))
            buffer.append(stored)
            locations.append(start..<(start + stored.count))
        }
        return locations
    }

    /// Appends records, sealed, with one `write`; with `sync`, the file (and, when new, its
    /// directory entry) is on disk before this returns. Returns where each record's stored bytes lie.
    /// - Throws: ``ParleyError/storage(_:)`` when the file cannot be opened or written; nothing of
    ///   the failed records then stays in the file.
    @discardableResult
    mutating func append(_ payloads: [Data], sync: Bool) throws -> [Range<Int>] {
        try openForAppending()
        try catchUpWithTheFile()
        let sealer = try keyring.current()
        var buffer = Data()
        let header: Data
        if length == 0 {
            header = Self.makeHeader(keyID: sealer.keyID)
            buffer.append(header)
        } else if let current = self.header, !holdsPlaintext {
            header = current
        } else {
            throw ParleyError.storage("\(name) holds plain records: it must be rewritten before appending")
        }
        guard header[Self.magic.count..<(Self.magic.count + RecordSealer.keyIDSize)] == sealer.keyID else {
            // The key changed under this instance (a sign-out): records sealed now would be lost.
            throw ParleyError.storage("\(name) is sealed with a key this storage no longer has: use a new storage")
        }
        let locations = try seal(payloads, header: header, with: sealer, into: &buffer, at: length)
        do {
            try PosixFile.writeAll(buffer, to: descriptor)
            if sync { try PosixFile.check(fsync(descriptor), "fsync") }
        } catch {
            // Cut whatever part of the records reached the file, so the next append starts clean;
            // closed, so that the next append checks the file's size again should this fail too.
            _ = ftruncate(descriptor, off_t(length))
            close()
            throw ParleyError.storage("cannot write \(name): \(error)")
        }
        length += buffer.count
        self.header = header
        if sync && needsDirectorySync {
            do {
                try PosixFile.syncDirectory(of: url)
            } catch {
                throw ParleyError.storage("cannot sync \(name)'s folder: \(error)")
            }
            needsDirectorySync = false
        }
        return locations
    }

    /// Replaces the whole file with these records, sealed under a new header, atomically (a
    /// temporary file written and synced, renamed over the journal, the directory synced). A kill
    /// at any point leaves either the old journal or the new one.
    /// - Throws: ``ParleyError/storage(_:)`` when a step fails; the old journal then stays.
    mutating func replace(with payloads: [Data]) throws {
        let sealer = try keyring.current()
        let header = Self.makeHeader(keyID: sealer.keyID)
        var buffer = header
        try seal(payloads, header: header, with: sealer, into: &buffer, at: 0)
        do {
            try PosixFile.replace(url, with: buffer)
        } catch {
            throw ParleyError.storage("cannot rewrite \(name): \(error)")
        }
        close()
        length = buffer.count
        isRead = true
        holdsPlaintext = false
        self.header = header
    }

    /// Closes the file (the next append opens it again).
    mutating func close() {
        if descriptor >= 0 { _ = closeDescriptor(descriptor) }
        descriptor = -1
    }

    /// Takes in records another instance appended to the same file since this one read it (one
    /// client per folder is the rule; tests break it): `O_APPEND` puts new records after them, and
    /// a record is sealed for the offset where it will lie.
    private mutating func catchUpWithTheFile() throws {
        guard length > 0 else { return }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        if Int(status.st_size) > length {
            length = Int(status.st_size)
        } else if Int(status.st_size) < length {
            // Shorter than what was read: read it again.
            close()
            isRead = false
            try openForAppending()
        }
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
            try PosixFile.check(fd, "open")
            var status = stat()
            if fstat(fd, &status) == 0, Int(status.st_size) < length {
                // Shorter than what was read: changed behind this instance's back; read it again.
                _ = try readRecords()
            }
            if fstat(fd, &status) == 0, Int(status.st_size) > length {
                // Bytes past the last whole record: a torn record, or a header cut short.
                try PosixFile.check(ftruncate(fd, off_t(length)), "ftruncate")
            }
            descriptor = fd
        } catch {
            if fd >= 0 { _ = closeDescriptor(fd) }
            throw ParleyError.storage("cannot open \(name): \(error)")
        }
        needsDirectorySync = !existed
    }
}

/// A whole record: its stored bytes (sealed, or the JSON of a `PRLYLOG1` file) and where they lie.
struct JournalRecord {
    let stored: Data
    let location: Range<Int>

    /// Where the record ends in the file.
    var end: Int { location.upperBound }
    /// What the record takes in the file, framing included.
    var storedBytes: Int { location.count + JournalFile.framing }
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
