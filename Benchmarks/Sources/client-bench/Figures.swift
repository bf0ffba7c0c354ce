import Foundation
import ParleyCore
import ParleyKit
#if canImport(Glibc)
import Glibc
#endif

/// This process's resident memory, from /proc/self/status.
enum Memory {
    /// VmRSS in bytes; with `trimmed`, after returning the allocator's free pages to the system
    /// (glibc keeps freed memory in its arenas; that is not memory the client holds).
    static func residentBytes(trimmed: Bool) -> Int {
        if trimmed { trim() }
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (malloc.h is not in the Glibc module).
    private static func trim() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        }
        #endif
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
}

/// The old storage's cost: the whole history encoded and written atomically, once per received event.
enum OldStorage {
    static func measure(_ history: StoredHistory, repetitions: Int = 10) throws -> (bytes: Int, time: Duration) {
        let directory = BenchSetup.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("history.json")
        let clock = ContinuousClock()
        var bytes = 0
        var times: [Duration] = []
        for _ in 0..<repetitions {
            let start = clock.now
            let data = try ParleyJSON.encode(history)
            try data.write(to: url, options: .atomic)
            times.append(clock.now - start)
            bytes = data.count
        }
        return (bytes, times.sorted()[times.count / 2])
    }
}

/// The journal's cost: one event appended to a copy of the loaded history.
enum NewStorage {
    static func measure(_ history: StoredHistory, conversation: ConversationID, repetitions: Int = 200) throws -> Duration {
        let directory = BenchSetup.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = FileStorage(directory: directory)
        for change in history.events { try storage.appendEvents(change.value, to: change.key) }
        guard let last = history.events[conversation]?.last else { return .zero }
        let clock = ContinuousClock()
        var times: [Duration] = []
        for index in 1...repetitions {
            let event = ConversationEvent(conversationID: conversation, seq: last.seq + Int64(index), createdAt: Date(), author: last.author,
                                          body: .message(.init(clientMessageID: UUID().uuidString.lowercased(), text: "Live message \(index): is anyone there?")))
            let start = clock.now
            try storage.appendEvents([event], to: conversation)
            times.append(clock.now - start)
        }
        return times.sorted()[times.count / 2]
    }
}

/// The printed table: one row per figure.
struct FigureTable {
    private var rows: [(String, String, String)] = []

    mutating func add(_ figure: String, value: String, goal: String) {
        rows.append((figure, value, goal))
    }

    mutating func add(_ figure: String, median samples: [Duration], goal: String) {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return add(figure, value: "no runs", goal: goal) }
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        let p90 = sorted[max(0, Int((Double(sorted.count) * 0.9).rounded(.up)) - 1)]
        add(figure, value: "median \(ClientBench.milliseconds(median)), p90 \(ClientBench.milliseconds(p90)) (n = \(sorted.count))", goal: goal)
    }

    func print() {
        Swift.print("| figure | measured | goal |")
        Swift.print("|---|---|---|")
        for (figure, value, goal) in rows { Swift.print("| \(figure) | \(value) | \(goal) |") }
    }
}
