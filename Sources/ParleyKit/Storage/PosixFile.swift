import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls ``FileStorage``'s files are written with, where Foundation says too little
/// about durability: whole writes, `fsync` of a file and of its directory, atomic replacement and
/// exclusive creation.
enum PosixFile {
    /// Writes every byte, retrying on `EINTR` and short writes.
    static func writeAll(_ buffer: Data, to fd: Int32) throws {
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

    /// Syncs the directory holding `url`, so that a file created or renamed there survives a power cut.
    static func syncDirectory(of url: URL) throws {
        let fd = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        try check(fd, "open directory")
        defer { _ = closeDescriptor(fd) }
        try check(fsync(fd), "fsync directory")
    }

    /// Replaces the file at `url` with `bytes`, atomically: a temporary file (`0600`) is written
    /// and synced, renamed over it, and the directory synced. A kill at any point leaves either
    /// the old file or the new one.
    /// - Throws: ``SystemCallError`` of the step that failed; the old file then stays.
    static func replace(_ url: URL, with bytes: Data) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".tmp")
        do {
            let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            try check(fd, "open")
            defer { _ = closeDescriptor(fd) }
            try writeAll(bytes, to: fd)
            try check(fsync(fd), "fsync")
            try check(rename(temporary.path, url.path), "rename")
            try syncDirectory(of: url)
        } catch {
            _ = unlink(temporary.path)
            throw error
        }
    }

    /// Creates the file at `url` with `bytes`, readable by the owner only, and syncs it and its
    /// directory; returns false, writing nothing, when the file exists already (`O_EXCL`), so two
    /// processes making it at once keep one.
    /// - Throws: ``SystemCallError`` when a step fails; the file is then removed.
    static func create(_ url: URL, with bytes: Data) throws -> Bool {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 && errno == EEXIST { return false }
        try check(fd, "open")
        do {
            defer { _ = closeDescriptor(fd) }
            try writeAll(bytes, to: fd)
            try check(fsync(fd), "fsync")
        } catch {
            _ = unlink(url.path)
            throw error
        }
        try syncDirectory(of: url)
        return true
    }

    /// The whole file, or nil when there is none.
    /// - Throws: ``SystemCallError`` when it exists but cannot be read (permissions, I/O).
    static func contents(of url: URL) throws -> Data? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { return nil }
        try check(fd, "open")
        defer { _ = closeDescriptor(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                try check(-1, "read")
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    /// Renames a file, replacing whatever `destination` names.
    /// - Throws: ``SystemCallError`` when it cannot be renamed.
    static func move(_ url: URL, to destination: URL) throws {
        try check(rename(url.path, destination.path), "rename")
    }

    /// Removes the file; a missing file is not an error.
    /// - Throws: ``SystemCallError`` for any other failure.
    static func remove(_ url: URL) throws {
        if unlink(url.path) < 0 && errno != ENOENT { try check(-1, "unlink") }
    }

    /// Throws the `errno` of a call that returned a negative result.
    static func check(_ result: Int32, _ call: String) throws {
        guard result < 0 else { return }
        throw SystemCallError(call: call, code: errno)
    }
}

/// `close(2)`, named apart from the `close()` methods of the types that call it.
func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    return Darwin.close(fd)
    #elseif canImport(Musl)
    return Musl.close(fd)
    #else
    return Glibc.close(fd)
    #endif
}

/// A failed system call and its `errno`.
struct SystemCallError: Error, CustomStringConvertible {
    let call: String
    let code: Int32

    var description: String { "\(call): \(String(cString: strerror(code)))" }
}
