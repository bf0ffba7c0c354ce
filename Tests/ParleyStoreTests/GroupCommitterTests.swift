import ParleyCore
import GRDB
@testable import ParleyStoreSQLite
import Testing

/// A batch runs with no savepoint and falls back to a new transaction with one savepoint per unit
/// when a unit fails after writing: whichever path it takes, a failing unit's writes are undone and
/// nobody else's are.
@Suite("Group committer batches")
struct GroupCommitterTests {
    struct UnitFailed: Error, Equatable { var unit: Int }

    static func table() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: "CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        return queue
    }

    static func insert(_ values: Int..., thenFail unit: Int? = nil) -> GroupCommitter.Work {
        { db in
            for value in values { try db.execute(sql: "INSERT INTO t (x) VALUES (?)", arguments: [value]) }
            if let unit { throw UnitFailed(unit: unit) }
            return values.count
        }
    }

    static func stored(_ queue: DatabaseQueue) throws -> [Int] {
        try queue.read { try Int.fetchAll($0, sql: "SELECT x FROM t ORDER BY x") }
    }

    @Test func allUnitsSucceed_everyWriteStays() async throws {
        let queue = try Self.table()
        let results = try await GroupCommitter.run([Self.insert(1), Self.insert(2, 3), Self.insert(4)], on: queue)
        #expect(results.map { (try? $0.get()) as? Int } == [1, 2, 1])
        #expect(try Self.stored(queue) == [1, 2, 3, 4])
    }

    @Test func aUnitFailsAfterWriting_onlyItsWritesAreUndone() async throws {
        let queue = try Self.table()
        let results = try await GroupCommitter.run([Self.insert(1), Self.insert(2, 3, thenFail: 2), Self.insert(4)], on: queue)
        #expect((try? results[0].get()) as? Int == 1)
        #expect(throws: UnitFailed(unit: 2)) { try results[1].get() }
        #expect((try? results[2].get()) as? Int == 1)
        #expect(try Self.stored(queue) == [1, 4])
    }

    @Test func aConstraintFailsHalfway_laterUnitsSeeEarlierOnes() async throws {
        let queue = try Self.table()
        // Unit 2 writes 5, then collides with unit 1's 1; unit 3 may then write 5 itself.
        let results = try await GroupCommitter.run([Self.insert(1), Self.insert(5, 1), Self.insert(5)], on: queue)
        #expect((try? results[0].get()) != nil)
        #expect(throws: DatabaseError.self) { try results[1].get() }
        #expect((try? results[2].get()) != nil)
        #expect(try Self.stored(queue) == [1, 5])
    }

    @Test func aUnitRefusesBeforeWriting_theBatchRunsOnce_withoutASavepoint() async throws {
        let queue = try Self.table()
        let runs = Locked(0)
        func counted(_ work: @escaping GroupCommitter.Work) -> GroupCommitter.Work {
            { db in
                runs.withLock { $0 += 1 }
                return try work(db)
            }
        }
        let refuses: GroupCommitter.Work = { _ in throw UnitFailed(unit: 2) }
        let results = try await GroupCommitter.run([counted(Self.insert(1)), counted(refuses), counted(Self.insert(4))], on: queue)
        #expect(throws: UnitFailed(unit: 2)) { try results[1].get() }
        #expect(try Self.stored(queue) == [1, 4])
        #expect(runs.withLock { $0 } == 3, "one run: nothing to undo")

        runs.withLock { $0 = 0 }
        _ = try await GroupCommitter.run([counted(Self.insert(6)), counted(Self.insert(7, thenFail: 2))], on: queue)
        #expect(runs.withLock { $0 } == 4, "a unit that wrote, then failed, makes the batch run again, each unit alone")
        #expect(try Self.stored(queue) == [1, 4, 6])
    }
}
