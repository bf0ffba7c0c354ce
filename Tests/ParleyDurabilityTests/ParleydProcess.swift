import ParleyCore
import Foundation
import ParleyTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What parleyd printed once it was listening.
struct ParleydBanner: Sendable {
    /// `http://127.0.0.1:PORT`.
    var baseURL: URL
    /// The demo app's id: printed only on the first start of an empty data directory.
    var appID: String?
}

struct DurabilityError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs parleyd as a child process on one data directory, kills it with SIGKILL and starts it again.
///
/// Each start binds port 0 (a free port), so the base URL changes; `baseURL` is nil while no
/// server is known to be healthy, and clients poll it to follow the server across restarts.
final class ParleydSupervisor: Sendable {
    private struct State: ~Copyable {
        var process: SpawnedProcess?
        var baseURL: URL?
        var starts = 0
    }

    let executable: URL
    let dataDirectory: URL
    /// Where each start's stdout and stderr go (outside the data directory).
    let logDirectory: URL
    /// Added to `serve`'s arguments (a `--database` URL, node timings…).
    let extraArguments: [String]
    private let state = Locked(State())
    private let http: DurabilityHTTP

    init(executable: URL, dataDirectory: URL, logDirectory: URL, http: DurabilityHTTP, extraArguments: [String] = []) {
        self.executable = executable
        self.dataDirectory = dataDirectory
        self.logDirectory = logDirectory
        self.http = http
        self.extraArguments = extraArguments
    }

    /// The base URL of the running, healthy server; nil between a kill and the next healthy start.
    var baseURL: URL? { state.withLock { $0.baseURL } }

    /// The running parleyd's process id.
    var pid: Int32? { state.withLock { $0.process?.pid } }

    /// Starts parleyd, reads its banner from stdout, waits for `/health`, then publishes the base URL.
    @discardableResult
    func start(timeout: Duration = .seconds(30)) async throws -> ParleydBanner {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let number = state.withLock { state -> Int in
            state.starts += 1
            return state.starts
        }
        let stdoutURL = logDirectory.appendingPathComponent("parleyd-\(number).stdout")
        let stderrURL = logDirectory.appendingPathComponent("parleyd-\(number).stderr")
        let process = try SpawnedProcess(
            executable,
            arguments: [
                "serve", "--data-dir", dataDirectory.path, "--host", "127.0.0.1", "--port", "0",
                "--password-cost", "4", "--log-level", "warning", "--no-rate-limits",
            ] + extraArguments,
            // Nothing from the caller's environment may change where it listens or what it opens.
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PARLEY_") },
            output: .file(stdoutURL), errors: .file(stderrURL))
        state.withLock { $0.process = process }

        // The banner: stdout goes to a file, which we poll, so the child never blocks on a full pipe.
        var banner: ParleydBanner?
        while banner == nil {
            let text = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            banner = Self.parseBanner(text)
            if banner != nil { break }
            if let end = process.end {
                throw DurabilityError("parleyd start #\(number) ended (\(end)) before its banner\n\(stderrTail(number))")
            }
            guard clock.now < deadline else {
                throw DurabilityError("parleyd start #\(number) printed no banner within \(timeout)\n\(stderrTail(number))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        guard let banner else { throw DurabilityError("unreachable") }
        guard banner.baseURL.host == "127.0.0.1" else {
            throw DurabilityError("parleyd listens on \(banner.baseURL), not on 127.0.0.1")
        }

        while true {
            if let (status, _) = try? await http.request("GET", banner.baseURL.appendingPathComponent("health"), timeout: 2), status == 200 {
                break
            }
            guard process.isRunning else {
                throw DurabilityError("parleyd start #\(number) exited before /health answered\n\(stderrTail(number))")
            }
            guard clock.now < deadline else {
                throw DurabilityError("parleyd start #\(number) did not answer /health within \(timeout)\n\(stderrTail(number))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        state.withLock { $0.baseURL = banner.baseURL }
        return banner
    }

    /// Sends SIGKILL to the running server and waits until it is gone (reaped, killed by that signal).
    func kill(timeout: Duration = .seconds(10)) async throws {
        guard let process = state.withLock({ $0.process }) else { throw DurabilityError("no parleyd to kill") }
        let pid = process.pid
        guard process.isRunning else { throw DurabilityError("parleyd \(pid) had ended (\(process.end.map(\.description) ?? "")) before SIGKILL") }
        process.signal(SIGKILL)
        state.withLock { $0.baseURL = nil }
        let end = try await process.ended(timeout: timeout)
        guard end == .signalled(SIGKILL) else {
            throw DurabilityError("parleyd \(pid) ended by \(end), not by SIGKILL")
        }
        state.withLock { $0.process = nil }
    }

    /// Cleanup for any exit path (synchronous, for `defer`): SIGKILL whatever runs and reap it, so
    /// no zombie outlives the test.
    func killNow() {
        let process = state.withLock { state -> SpawnedProcess? in
            let process = state.process
            state.process = nil
            state.baseURL = nil
            return process
        }
        process?.signal(SIGKILL)
        process?.waitUntilExit()
    }

    /// The end of a start's stderr, for failure messages.
    func stderrTail(_ number: Int? = nil, characters: Int = 2_000) -> String {
        let number = number ?? state.withLock { $0.starts }
        let url = logDirectory.appendingPathComponent("parleyd-\(number).stderr")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.isEmpty ? "(stderr of start #\(number) is empty)" : "stderr of start #\(number):\n" + String(text.suffix(characters))
    }

    /// Reads `Parley … is listening on http://HOST:PORT` and, on a first start, `app id: app_…`.
    /// Nil until the whole banner (which ends with the `realtime:` line) is there.
    static func parseBanner(_ text: String) -> ParleydBanner? {
        guard text.contains("realtime:") else { return nil }
        var base: URL?
        var appID: String?
        for line in text.split(separator: "\n") {
            if let range = line.range(of: "is listening on ") {
                base = URL(string: line[range.upperBound...].trimmingCharacters(in: .whitespaces))
            } else if let range = line.range(of: "app id:") {
                appID = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
            }
        }
        return base.map { ParleydBanner(baseURL: $0, appID: appID) }
    }
}
