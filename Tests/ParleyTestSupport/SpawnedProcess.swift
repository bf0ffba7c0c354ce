import Foundation
import ParleyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn(3)`, for tests that run helpers (parleyd, parley,
/// Python fakes, aiosmtpd, clamd).
///
/// Not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` with a 256-byte copy of
/// each directory entry and, now and then, reads past the end of glibc's buffer into an unmapped
/// page; the test runner then dies with SIGSEGV in `memcpy` (swift-corelibs-foundation #5472, in
/// Swift 6.3.1). Here the child closes every descriptor above 2 with `closefrom`, and nothing reads
/// that directory. Its `waitUntilExit()` also spun a run loop at full CPU off the main thread.
///
/// The child gets the default action for the signals tests use and an empty signal mask, whatever
/// the test process ignores (SwiftNIO ignores SIGPIPE). Every child is reaped: by the wait methods,
/// or by a thread of its own when the last reference goes while it still runs.
public final class SpawnedProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe whose other end the test holds (``input``, ``output``, ``errors``).
        case pipe
        /// A file, created or truncated.
        case file(URL)
        /// Standard error only: wherever standard output goes.
        case sameAsOutput
    }

    /// How the child ended.
    public enum Ending: Equatable, Sendable, CustomStringConvertible {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        /// True for `exit(0)`.
        public var succeeded: Bool { self == .exited(0) }

        public var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    /// The child's process id.
    public let pid: pid_t
    /// The executable's file name, for messages.
    public let name: String
    /// The write end of the child's standard input, when it is ``Stream/pipe``.
    public let input: FileHandle?
    /// The read end of the child's standard output, when it is ``Stream/pipe``.
    public let output: FileHandle?
    /// The read end of the child's standard error, when it is ``Stream/pipe``.
    public let errors: FileHandle?
    private let ending = Locked<Ending?>(nil)

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - executable: the program's file.
    ///   - arguments: its arguments, without the program name.
    ///   - environment: the whole environment; nil for the test process's own.
    ///   - input: standard input (``Stream/sameAsOutput`` is not allowed).
    ///   - output: standard output (``Stream/sameAsOutput`` is not allowed).
    ///   - errors: standard error.
    /// - Throws: ``TestFailure`` when a pipe or file cannot be made or the spawn fails.
    public init(_ executable: URL, arguments: [String], environment: [String: String]? = nil,
                input: Stream = .null, output: Stream = .null, errors: Stream = .null) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        var parentEnds: [Int32?] = [nil, nil, nil]
        defer { childEnds.forEach { _ = close($0) } }

        for (target, stream) in [(Int32(0), input), (1, output), (2, errors)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let url):
                posix_spawn_file_actions_addopen(&actions, target, url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .sameAsOutput:
                guard target == 2 else { throw TestFailure("only standard error can go where standard output goes") }
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else {
                    parentEnds.compactMap { $0 }.forEach { _ = close($0) }
                    throw TestFailure("pipe failed: errno \(errno)")
                }
                // Close-on-exec for both ends (pipe2 is not in Swift's Glibc module); children
                // spawned meanwhile close them anyway (closefrom below).
                ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                let (child, parent) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(child)
                parentEnds[Int(target)] = parent
                // dup2 clears close-on-exec on the copy, so only the standard descriptor crosses exec.
                posix_spawn_file_actions_adddup2(&actions, child, target)
            }
        }
        try Self.closeFrom3(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), mask = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid = pid_t()
        let status = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            parentEnds.compactMap { $0 }.forEach { _ = close($0) }
            throw TestFailure("cannot start \(executable.path): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        name = executable.lastPathComponent
        self.input = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.output = parentEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.errors = parentEnds[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    deinit {
        guard !reap() else { return }
        // Still running: a thread waits for it, so it does not stay a zombie.
        let pid = pid
        let reaper = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        reaper.name = "reap-\(pid)"
        reaper.start()
    }

    /// True until the child has ended (and been reaped).
    public var isRunning: Bool { !reap() }

    /// How it ended; nil while it runs.
    public var end: Ending? {
        _ = reap()
        return ending.withLock { $0 }
    }

    /// Sends `signal` (SIGTERM unless told) unless it has already been reaped.
    public func signal(_ signal: Int32 = SIGTERM) {
        ending.withLock { ending in
            if ending == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits (blocking the thread) until the child ends, checking every 5 ms: not a blocking
    /// `waitpid`, so ``signal(_:)`` from another thread is never held up behind it.
    @discardableResult
    public func waitUntilExit() -> Ending {
        while true {
            if let end { return end }
            usleep(5_000)
        }
    }

    /// Waits, without blocking a thread, until the child ends, checking every 10 ms.
    /// - Parameter timeout: a safety net against a hang; tests await the end, not the time.
    /// - Throws: ``TestFailure`` when it still runs after `timeout`.
    @discardableResult
    public func ended(timeout: Duration = .seconds(30)) async throws -> Ending {
        var limit = WaitLimit(timeout)
        while true {
            if let end { return end }
            guard !limit.isSpent() else { throw TestFailure("\(name) (\(pid)) still runs after \(limit.limit)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// SIGTERM, then SIGKILL if it still runs after `grace`; returns once it is reaped.
    @discardableResult
    public func stop(grace: Duration = .seconds(3)) -> Ending {
        signal(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        signal(SIGKILL)
        return waitUntilExit()
    }

    /// Adds `closefrom(3)` to the child's actions: glibc 2.34 has it, but as a GNU extension it
    /// is not in Swift's Glibc module, so it is looked up by name.
    private static func closeFrom3(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw TestFailure("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later needed)")
        }
        let status = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        guard status == 0 else { throw TestFailure("posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(status)))") }
    }

    /// Calls `waitpid` (without waiting) unless the child was reaped already; true once it has ended.
    private func reap() -> Bool {
        ending.withLock { ending in
            if ending != nil { return true }
            var status: Int32 = 0
            while true {
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid { break }
                if result < 0, errno == EINTR { continue }
                if result < 0, errno == ECHILD {
                    ending = .exited(-1)  // reaped elsewhere: gone, status unknown
                    return true
                }
                return false  // 0: still running
            }
            let low = status & 0x7f
            ending = low == 0 ? .exited((status >> 8) & 0xff) : .signalled(low)
            return true
        }
    }
}
