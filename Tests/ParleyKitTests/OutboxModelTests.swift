import Crypto
import Foundation
import ParleyCore
@testable import ParleyKit
import ParleyTestSupport
import Testing

/// A model-based test of the SDK's outbox and resume: random runs of sends, app kills (between any
/// two of the client's writes, the last one torn on a real ``FileStorage``), lost connections,
/// reconnects and server restarts, against a server that stores each client message id once.
/// After each run everything is let through; then every message `send` accepted must be stored
/// exactly once, each conversation's in the order they were sent, and nothing else but the
/// messages the app was killed while sending (at most once). A failing run is shrunk to the fewest
/// steps that still fail, and printed.
@Suite("ParleyKit outbox model")
struct OutboxModelTests {
    /// One step of a run.
    enum Step: Hashable, CustomStringConvertible {
        /// The app sends in conversation `conversation` (0–2). With `killedAt`, the app is killed
        /// during that action of the send (a write or a transmission; the send did not return); a
        /// write it was killed in is torn by `tear` bytes (0: it landed whole).
        case send(conversation: Int, killedAt: Int?, tear: Int)
        /// The network carries the oldest message in flight to the server.
        case deliver
        /// The network carries the oldest answer to the client; with `killedAt`, the app is killed
        /// during that action of the ones the answer causes, a write torn by `tear` bytes.
        case acknowledge(killedAt: Int?, tear: Int)
        /// The connection drops: what is on the wire is lost both ways.
        case dropConnection
        /// The client connects again.
        case reconnect
        /// The app is killed between two steps (every write it made had returned).
        case kill
        /// The server restarts: answers in flight are lost, stored messages stay.
        case restartServer

        var description: String {
            switch self {
            case .send(let conversation, let cut, let tear): "send(c\(conversation)\(cut.map { ", killed at \($0), tear \(tear)" } ?? ""))"
            case .deliver: "deliver"
            case .acknowledge(let cut, let tear): "acknowledge\(cut.map { "(killed at \($0), tear \(tear))" } ?? "")"
            case .dropConnection: "drop"
            case .reconnect: "reconnect"
            case .kill: "kill"
            case .restartServer: "restart server"
            }
        }
    }

    /// Where the outbox is kept across kills.
    enum Storage {
        case memory(MemoryStorage)
        case files(URL)

        func open() -> any ParleyStorage {
            switch self {
            case .memory(let storage): storage
            case .files(let folder): FileStorage(directory: folder, encryption: .key(SymmetricKey(data: Data(repeating: 7, count: 32))))
            }
        }

        /// Cuts `bytes` off the end of the outbox journal: the last write torn by the kill.
        func tear(_ bytes: Int) throws {
            guard bytes > 0, case .files(let folder) = self else { return }
            let url = folder.appendingPathComponent("outbox.log")
            guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int), size > bytes else { return }
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(size - bytes))
            try handle.close()
        }
    }

    /// The client, the wire and the server.
    struct World {
        let storage: Storage
        var store: any ParleyStorage
        var machine: OutboxMachine
        /// Client → server, in order.
        var wire: [OutboxItem] = []
        /// Server → client: the acknowledged client message ids, in order.
        var answers: [String] = []
        /// What the server stored, per conversation, in order.
        var server: [Int: [String]] = [:]
        /// What `send` accepted (returned for), per conversation, in order.
        var accepted: [Int: [String]] = [:]
        /// Sends the app was killed in: stored at most once, or not at all.
        var interrupted: Set<String> = []
        var online = false
        var counter = 0

        init(storage: Storage) throws {
            self.storage = storage
            store = storage.open()
            machine = OutboxMachine(items: try store.loadOutbox())
        }

        static let conversations = (0..<3).map { _ in ConversationID.generate() }

        static func index(of conversation: ConversationID) -> Int { conversations.firstIndex(of: conversation)! }

        /// Carries out the machine's actions; with `killedAt`, the app dies during that one: a write
        /// lands torn by `tear` bytes (0: whole), a transmission does not happen. Returns false when
        /// it was killed.
        mutating func perform(_ actions: [OutboxMachine.Action], killedAt: Int? = nil, tear: Int = 0) throws -> Bool {
            for (index, action) in actions.enumerated() {
                if let killedAt, index == killedAt {
                    switch action {
                    case .store(let item): try store.appendOutbox(item)
                    case .update(let item): try store.updateOutbox(item)
                    case .remove(let id): try store.removeOutbox(clientMessageID: id)
                    default: return false
                    }
                    try storage.tear(tear)
                    return false
                }
                switch action {
                case .store(let item): try store.appendOutbox(item)
                case .update(let item): try store.updateOutbox(item)
                case .remove(let id): try store.removeOutbox(clientMessageID: id)
                case .transmit(let item): if online { wire.append(item) }
                case .delivered, .failed: break
                }
            }
            return true
        }

        /// The app dies and starts again from what its storage kept.
        mutating func restartApp() throws {
            store = storage.open()
            machine = OutboxMachine(items: try store.loadOutbox())
            answers = []  // the answers went to the dead process
            online = false
        }

        mutating func apply(_ step: Step) throws {
            switch step {
            case .send(let conversation, let cut, let tear):
                counter += 1
                let item = OutboxItem(clientMessageID: "m\(counter)", conversationID: Self.conversations[conversation], text: "text \(counter)",
                                      createdAt: Date(timeIntervalSince1970: TimeInterval(counter)))
                if try perform(machine.enqueue(item), killedAt: cut, tear: tear) {
                    accepted[conversation, default: []].append(item.clientMessageID)
                } else {
                    interrupted.insert(item.clientMessageID)
                    try restartApp()
                }
            case .deliver:
                guard !wire.isEmpty else { return }
                let item = wire.removeFirst()
                let index = Self.index(of: item.conversationID)
                if !(server[index]?.contains(item.clientMessageID) ?? false) { server[index, default: []].append(item.clientMessageID) }
                answers.append(item.clientMessageID)
            case .acknowledge(let cut, let tear):
                guard !answers.isEmpty else { return }
                let id = answers.removeFirst()
                let event = ConversationEvent(conversationID: Self.conversations[0], seq: 1, createdAt: Date(), author: .system,
                                              body: .message(MessageBody(clientMessageID: id, text: "")))
                if try !perform(machine.acknowledged(id, event: event), killedAt: cut, tear: tear) { try restartApp() }
            case .dropConnection:
                wire = []
                answers = []
                online = false
                _ = try perform(machine.connectionLost())
            case .reconnect:
                guard !online else { return }
                online = true
                _ = try perform(machine.connectionOpened())
            case .kill:
                try restartApp()
            case .restartServer:
                answers = []
                wire = []
                online = false
                _ = try perform(machine.connectionLost())
            }
        }

        /// Lets everything through: connected, every message delivered and answered.
        mutating func settle() throws {
            for _ in 0..<10_000 {
                if !online { try apply(.reconnect) }
                if !wire.isEmpty { try apply(.deliver); continue }
                if !answers.isEmpty { try apply(.acknowledge(killedAt: nil, tear: 0)); continue }
                if machine.items.isEmpty { return }
                // Waiting items with nothing in flight: the connection was reset; go again.
                try apply(.dropConnection)
            }
            throw TestFailure("the outbox never settled: \(machine.items.map(\.clientMessageID))")
        }

        /// Why the run breaks the promise, or nil.
        func violation() -> String? {
            for conversation in 0..<3 {
                let stored = server[conversation] ?? [], promised = accepted[conversation] ?? []
                if Set(stored).count != stored.count { return "c\(conversation): stored twice: \(stored)" }
                let kept = stored.filter { !interrupted.contains($0) }
                if kept != promised { return "c\(conversation): accepted \(promised), stored \(stored)" }
                // Every stored message in the order it was sent (their counters ascend).
                let numbers = stored.compactMap { Int($0.dropFirst()) }
                if numbers != numbers.sorted() { return "c\(conversation): out of order: \(stored)" }
            }
            return nil
        }
    }

    static func steps(seed: UInt64, tears: Bool) -> [Step] {
        var random = SplitMix64(state: seed)  // a run is reproduced by its seed
        return (0..<Int.random(in: 10...60, using: &random)).map { _ in
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<30: .send(conversation: Int.random(in: 0..<3, using: &random),
                               killedAt: Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: 0...1, using: &random) : nil,
                               tear: tears ? Int.random(in: 0...6, using: &random) : 0)
            case 30..<55: .deliver
            case 55..<75: .acknowledge(killedAt: Int.random(in: 0..<8, using: &random) == 0 ? 0 : nil, tear: tears ? Int.random(in: 0...6, using: &random) : 0)
            case 75..<83: .dropConnection
            case 83..<92: .reconnect
            case 92..<97: .kill
            default: .restartServer
            }
        }
    }

    static func run(_ steps: [Step], storage: () throws -> Storage) throws -> String? {
        var world = try World(storage: storage())
        for step in steps { try world.apply(step) }
        try world.settle()
        return world.violation()
    }

    /// The fewest steps of `steps` that still break the promise: drops one step at a time while it does.
    static func shrink(_ steps: [Step], storage: () throws -> Storage) throws -> [Step] {
        var smallest = steps
        var index = 0
        while index < smallest.count {
            var candidate = smallest
            candidate.remove(at: index)
            if try run(candidate, storage: storage) != nil { smallest = candidate } else { index += 1 }
        }
        return smallest
    }

    func check(runs: Int, seedBase: UInt64, tears: Bool, storage: () throws -> Storage) throws {
        for run in 0..<runs {
            let steps = Self.steps(seed: seedBase &+ UInt64(run), tears: tears)
            guard let problem = try Self.run(steps, storage: storage) else { continue }
            let smallest = try Self.shrink(steps, storage: storage)
            Issue.record("run \(run) (seed \(seedBase &+ UInt64(run))): \(problem)\nshrunk to \(smallest.count) steps: \(smallest)")
            return
        }
    }

    @Test func aThousandRuns_inMemory_everyAcceptedMessageStoredOnceInOrder() throws {
        try check(runs: 1_000, seedBase: 0x5EED_0000, tears: false) { .memory(MemoryStorage()) }
    }

    @Test func runsOnFiles_killsTearingTheLastWrite_everyAcceptedMessageStoredOnceInOrder() throws {
        var folders: [URL] = []
        defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }
        try check(runs: 120, seedBase: 0xF11E_0000, tears: true) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-outbox-model-\(UUID().uuidString)")
            folders.append(folder)
            return .files(folder)
        }
    }

    /// The checker itself: a run that loses an accepted message, or stores one twice, is caught and shrunk.
    @Test func theCheckerCatchesALostAndADoubledMessage() throws {
        var lost = try World(storage: .memory(MemoryStorage()))
        try lost.apply(.reconnect)
        try lost.apply(.send(conversation: 0, killedAt: nil, tear: 0))
        lost.accepted[1, default: []].append("m99")
        #expect(lost.violation() != nil)
        var doubled = try World(storage: .memory(MemoryStorage()))
        doubled.server[0] = ["m1", "m1"]
        doubled.accepted[0] = ["m1"]
        #expect(doubled.violation()?.contains("twice") == true)
        var shuffled = try World(storage: .memory(MemoryStorage()))
        shuffled.server[2] = ["m2", "m1"]
        shuffled.accepted[2] = ["m2", "m1"]
        #expect(shuffled.violation()?.contains("out of order") == true)
    }
}
