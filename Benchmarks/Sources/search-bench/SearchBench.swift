import Foundation
import ParleyCore
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite

/// Desk search on a large stored corpus: builds N messages through the store's commit path (so
/// the index is written exactly as in production), then times `searchMessages` for a mix of
/// queries beside the floor of the same run (reading one conversation by id).
///
///     search-bench sqlite [messages] [queries]
///     search-bench postgres://user@host:port/db [messages] [queries]     (an empty database, or one
///                                                                       that holds an earlier run's corpus)
@main
struct SearchBench {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let target = arguments.first ?? "sqlite"
        let messages = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
        let queries = arguments.count > 2 ? Int(arguments[2]) ?? 300 : 300
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-search-bench-\(UUID().uuidString)")
        let store: any ParleyStore
        if target == "sqlite" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            store = try SQLiteStore(path: folder.appendingPathComponent("bench.sqlite").path)
        } else {
            store = try await PostgresStore(configuration: .init(url: target))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = Corpus(seed: 0x5EA5C4)
        // A PostgreSQL database that already holds the corpus (from an earlier run) is measured as it is.
        let app: (AppID, [ConversationID])
        if let existing = try await store.apps().first(where: { $0.name == "search-bench" }) {
            let ids = try await store.conversations(ConversationQuery(appID: existing.id, limit: 1_000_000)).map(\.id)
            print("corpus: reusing the \(ids.count) conversations already stored")
            app = (existing.id, ids)
        } else {
            app = try await build(store, corpus: corpus, messages: messages)
        }
        let label = target == "sqlite" ? "SQLite" : "PostgreSQL"
        try await measure(store, app: app, corpus: corpus, queries: queries, page: .newest(before: nil), label: "\(label), newest first (the default)")
        try await measure(store, app: app, corpus: corpus, queries: queries, page: .relevance(offset: 0), label: "\(label), by relevance")
        try await store.close()
    }

    /// Opens conversations of 20 messages each and fills them from 64 concurrent writers.
    static func build(_ store: any ParleyStore, corpus: Corpus, messages: Int) async throws -> (AppID, [ConversationID]) {
        let app = App(id: .generate(), name: "search-bench", createdAt: Date())
        try await store.insertApp(app, secretKey: "sk")
        let queue = Queue(id: .generate(), appID: app.id, name: "Support", createdAt: Date())
        try await store.insertQueue(queue)
        let perConversation = 20
        let conversationCount = max(1, messages / perConversation)
        let writers = 64
        let started = ContinuousClock.now
        let ids = try await withThrowingTaskGroup(of: [ConversationID].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var random = SplitMix(seed: UInt64(writer) &+ 1)
                    var ids: [ConversationID] = []
                    for index in stride(from: writer, to: conversationCount, by: writers) {
                        let visitor = try await store.upsertVisitor(app: app.id, deviceID: "device-\(index % 5_000)",
                                                                    profile: .init(name: "Visitor \(index % 5_000)"), at: Date())
                        let id = ConversationID.generate()
                        _ = try await store.commit(.open(.init(id: id, appID: app.id, queueID: queue.id, visitorID: visitor.id, visitorName: visitor.name,
                                                               subject: nil, attributes: [:], queueRank: Int64(index), at: Date())))
                        for message in 0..<perConversation {
                            _ = try await store.commit(.postMessage(.init(
                                conversationID: id, appID: app.id, author: .visitor(visitor.id, name: visitor.name), clientMessageID: "m-\(message)",
                                text: corpus.message(&random), reopenRank: Int64(index), at: Date())))
                        }
                        ids.append(id)
                        if index % 5_000 == 0 { print("  … \(index * perConversation) messages stored") }
                    }
                    return ids
                }
            }
            var all: [ConversationID] = []
            for try await ids in group { all += ids }
            return all
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        print(String(format: "corpus: %d messages in %d conversations, stored and indexed in %.0f s (%.0f messages/s)",
                     ids.count * perConversation, ids.count, seconds, Double(ids.count * perConversation) / seconds))
        return (app.id, ids)
    }

    static func measure(_ store: any ParleyStore, app: (AppID, [ConversationID]), corpus: Corpus, queries: Int, page: MessageSearchPage,
                        label: String) async throws {
        var random = SplitMix(seed: 42)
        let kinds: [(String, (inout SplitMix) -> String)] = [
            ("one common word", { corpus.word(rank: Int.random(in: 20..<200, using: &$0)) }),
            ("one rare word", { corpus.word(rank: Int.random(in: 2_000..<20_000, using: &$0)) }),
            ("two words", { corpus.word(rank: Int.random(in: 20..<2_000, using: &$0)) + " " + corpus.word(rank: Int.random(in: 20..<2_000, using: &$0)) }),
            ("a prefix (3 letters)", { String(corpus.word(rank: Int.random(in: 200..<5_000, using: &$0)).prefix(3)) }),
        ]
        // Warm the caches as a running server's would be.
        for _ in 0..<20 { _ = try await store.searchMessages(query(app.0, kinds[0].1(&random)), page: page) }
        print("\(label): \(queries) queries per kind, 21 rows a page (20 and one to know there is more)")
        print("kind                      p50 ms   p95 ms   p99 ms   mean hits")
        var everything: [Double] = []
        for (name, make) in kinds {
            var times: [Double] = []
            var hits = 0
            for _ in 0..<queries {
                let started = ContinuousClock.now
                let rows = try await store.searchMessages(query(app.0, make(&random)), page: page)
                times.append(milliseconds(ContinuousClock.now - started))
                hits += rows.count
            }
            everything += times
            print(row(name, times) + String(format: "   %9.1f", Double(hits) / Double(queries)))
        }
        print(row("all search kinds", everything))
        var floor: [Double] = []
        for _ in 0..<queries {
            let id = app.1.randomElement(using: &random)!
            let started = ContinuousClock.now
            _ = try await store.conversation(id, app: app.0)
            floor.append(milliseconds(ContinuousClock.now - started))
        }
        print(row("floor: one row by id", floor))
    }

    static func query(_ app: AppID, _ text: String) -> SearchQuery {
        SearchQuery(appID: app, terms: SearchText.queryTerms(text), text: text, limit: 21)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    static func row(_ name: String, _ times: [Double]) -> String {
        let sorted = times.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return name.padding(toLength: 24, withPad: " ", startingAt: 0)
            + String(format: " %8.2f %8.2f %8.2f", percentile(0.5), percentile(0.95), percentile(0.99))
    }
}

/// Message text from a vocabulary of 20,000 made-up words with Zipf-like frequencies (the word of
/// rank r about 1/r as often as the first), 4 to 24 words a message: shaped like chat text.
struct Corpus: Sendable {
    let words: [String]
    let cumulative: [Double]

    init(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let syllables = ["ka", "lo", "mi", "re", "tu", "sa", "ne", "po", "di", "ga", "vo", "ri", "xe", "bu", "fa", "zo", "qui", "ash", "en", "or"]
        var seen = Set<String>()
        var words: [String] = []
        while words.count < 20_000 {
            let length = Int.random(in: 2...4, using: &random)
            let word = (0..<length).map { _ in syllables.randomElement(using: &random)! }.joined()
            if seen.insert(word).inserted { words.append(word) }
        }
        self.words = words
        var total = 0.0
        cumulative = (1...words.count).map { rank in
            total += 1 / Double(rank)
            return total
        }
    }

    func word(rank: Int) -> String { words[rank] }

    func message(_ random: inout SplitMix) -> String {
        let count = Int.random(in: 4...24, using: &random)
        return (0..<count).map { _ in
            let target = Double.random(in: 0..<cumulative[cumulative.count - 1], using: &random)
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return words[low]
        }.joined(separator: " ")
    }
}

/// A small seeded generator, so every run builds the same corpus and asks the same queries.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
