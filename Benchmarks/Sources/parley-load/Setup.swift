import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin and session calls that set a run up (HTTP + JSON through URLSession; not timed).
struct ParleyAPI: Sendable {
    let base: URL
    let session: URLSession

    init(base: URL) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    @discardableResult
    func call(_ method: String, _ path: String, token: String? = nil, body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        var lastError: (any Error)?
        for attempt in 0..<5 {
            do {
                let (data, response) = try await session.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                let object = data.isEmpty ? [:] : ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
                guard (200..<300).contains(status) else {
                    throw LoadError("\(method) \(path): HTTP \(status) \(String(decoding: data, as: UTF8.self))")
                }
                return object
            } catch let error as LoadError {
                throw error
            } catch {
                // Connection-level failures (a busy listen queue) are retried; HTTP errors are not.
                lastError = error
                try await Task.sleep(for: .milliseconds(100 * (attempt + 1)))
            }
        }
        throw lastError ?? LoadError("\(method) \(path) failed")
    }

    /// Runs `body` for 0..<count with at most `width` calls in flight, returning results in order.
    func parallel<T: Sendable>(_ count: Int, width: Int = 32, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
        var results = [T?](repeating: nil, count: count)
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var next = 0
            while next < min(width, count) {
                let i = next
                group.addTask { (i, try await body(i)) }
                next += 1
            }
            while let (i, value) = try await group.next() {
                results[i] = value
                if next < count {
                    let j = next
                    group.addTask { (j, try await body(j)) }
                    next += 1
                }
            }
        }
        return results.map { $0! }
    }
}

struct Visitor: Sendable {
    let token: String
    let id: String
}

struct AgentLogin: Sendable {
    let token: String
    let id: String
}

/// A fresh app with one queue, made with the operator token, so that runs never share state.
struct BenchApp: Sendable {
    let appID: String
    let queueID: String
    let runID: String

    static func create(_ api: ParleyAPI, adminToken: String) async throws -> BenchApp {
        let runID = String(UInt64(Date().timeIntervalSince1970 * 1000), radix: 36) + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let created = try await api.call("POST", "/v1/admin/apps", token: adminToken, body: ["name": "bench \(runID)"])
        guard let app = created["app"] as? [String: Any], let appID = app["id"] as? String else { throw LoadError("no app id in \(created)") }
        let queue = try await api.call("POST", "/v1/admin/apps/\(appID)/queues", token: adminToken, body: ["name": "bench"])
        guard let queueID = queue["id"] as? String else { throw LoadError("no queue id in \(queue)") }
        return BenchApp(appID: appID, queueID: queueID, runID: runID)
    }

    /// Creates agents through `api` (admin calls); they log in through `loginAPI` (default: the same node).
    func createAgents(_ api: ParleyAPI, adminToken: String, count: Int, capacity: Int = 1, loginAPI: ParleyAPI? = nil) async throws -> [AgentLogin] {
        let loginAPI = loginAPI ?? api
        let app = self
        let password = "bench-password-\(runID)"
        return try await api.parallel(count, width: 8) { i in
            let email = "a\(i)-\(app.runID)@bench.test"
            _ = try await api.call("POST", "/v1/admin/apps/\(app.appID)/agents", token: adminToken, body: [
                "name": "Agent \(i)", "email": email, "password": password, "capacity": capacity, "queue_ids": [app.queueID],
            ])
            let login = try await loginAPI.call("POST", "/v1/agent/login", body: ["email": email, "password": password])
            guard let token = login["token"] as? String, let agent = login["agent"] as? [String: Any], let id = agent["id"] as? String else {
                throw LoadError("bad login answer \(login)")
            }
            return AgentLogin(token: token, id: id)
        }
    }

    func createVisitors(_ api: ParleyAPI, count: Int, offset: Int = 0) async throws -> [Visitor] {
        let app = self
        return try await api.parallel(count, width: 32) { i in
            let answer = try await api.call("POST", "/v1/visitor/session", body: [
                "app_id": app.appID, "device_id": "bench-\(app.runID)-\(offset + i)", "name": "Visitor \(offset + i)",
            ])
            guard let token = answer["token"] as? String, let visitor = answer["visitor"] as? [String: Any], let id = visitor["id"] as? String else {
                throw LoadError("bad session answer \(answer)")
            }
            return Visitor(token: token, id: id)
        }
    }
}

/// CPU seconds and resident memory of a process (or several, summed), from /proc.
struct ProcSample {
    var cpuSeconds: Double
    var rssKB: Int
    /// Each process's CPU seconds, in pid order (one entry for a single process).
    var each: [Double] = []

    /// The sum over `pids`; nil if there are none or one cannot be read.
    static func read(pids: [Int32]) -> ProcSample? {
        guard !pids.isEmpty else { return nil }
        var sum = ProcSample(cpuSeconds: 0, rssKB: 0)
        for pid in pids {
            guard let one = read(pid: pid) else { return nil }
            sum.cpuSeconds += one.cpuSeconds
            sum.rssKB += one.rssKB
            sum.each.append(one.cpuSeconds)
        }
        return sum
    }

    static func read(pid: Int32) -> ProcSample? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After "pid (comm)": state is field 3, utime 14, stime 15 (1-based, counting pid and comm).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var rss = 0
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
            for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
                rss = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
            }
        }
        let cpu = (user + system) / ticks
        return ProcSample(cpuSeconds: cpu, rssKB: rss, each: [cpu])
    }
}
