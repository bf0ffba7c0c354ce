import ParleyCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A built executable of this package (parleyd, parley) run as a child process, with its output
/// collected and lines written to its input. Killed on `terminate()` and when dropped.
public final class ChildProcess: Sendable {
    private let process: SpawnedProcess
    private let output = Collected()

    /// The executable `name` that SwiftPM built next to the test bundle (see ``BuiltExecutable``).
    public static func executable(_ name: String) throws -> URL {
        try BuiltExecutable.locate(name)
    }

    /// Starts `name` with arguments and extra environment.
    public init(_ name: String, arguments: [String], environment: [String: String] = [:]) throws {
        process = try SpawnedProcess(
            Self.executable(name), arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            input: .pipe, output: .pipe, errors: .sameAsOutput)
        // Both are pipes: SpawnedProcess made them.
        Self.drain(process.output!, into: output)
    }

    /// Reads the child's output on a thread of its own until end of file.
    ///
    /// Not `readabilityHandler`: on Linux its dispatch source keeps firing at end of file and can
    /// outlive the handle, which crashed the test process. A blocking `read(2)` loop ends cleanly
    /// when the child exits and closes its end of the pipe; the thread keeps the handle open until then.
    private static func drain(_ handle: FileHandle, into collected: Collected) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected.append(Data(buffer[0..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break  // 0: end of file; < 0: the pipe is gone
                }
            }
            collected.finish()
            withExtendedLifetime(handle) {}
        }
        thread.name = "child-output"
        thread.start()
    }

    deinit { terminate() }

    /// Everything the process printed so far (stdout and stderr).
    public var printed: String { output.text }

    /// Types a line into the process.
    public func type(_ line: String) {
        process.input?.write(Data((line + "\n").utf8))
    }

    /// Waits until the output contains `text`.
    public func waitFor(_ text: String, timeout: Duration = .seconds(20)) async throws {
        var limit = WaitLimit(timeout)
        while !printed.contains(text) {
            guard !limit.isSpent() else {
                throw TestFailure("\(process.name) never printed \"\(text)\"; it printed:\n\(printed)")
            }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// Waits for the process to exit and for the last of its output, and returns its status.
    ///
    /// Exiting is not enough: the output thread may not have read what the process printed last
    /// (under load a run of `parleyd migrate` once read as empty). The end of the pipe is.
    public func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        var limit = WaitLimit(timeout)
        while true {
            if let end = process.end, output.isFinished {
                guard case .exited(let status) = end else { throw TestFailure("\(process.name) ended by \(end); printed:\n\(printed)") }
                return status
            }
            guard !limit.isSpent() else { throw TestFailure("still running after \(limit.limit); printed:\n\(printed)") }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// Kills the process if it still runs.
    public func terminate() {
        process.signal(SIGTERM)
    }
}

/// Output gathered from a pipe's handler thread.
private final class Collected: Sendable {
    private let storage = Locked((text: "", isFinished: false))
    var text: String { storage.withLock { $0.text } }
    /// True once the pipe reached its end: everything the process printed is in ``text``.
    var isFinished: Bool { storage.withLock { $0.isFinished } }
    func append(_ data: Data) { storage.withLock { $0.text += String(decoding: data, as: UTF8.self) } }
    func finish() { storage.withLock { $0.isFinished = true } }
}
