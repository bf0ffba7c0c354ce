import GRDB
@testable import ParleyStoreSQLite
import Testing

/// A batch runs under one savepoint and falls back to one savepoint per unit when a unit fails:
/// whichever path it takes, a failing unit's writes are undone and nobody else's are.
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

    @Test func allUnitsSucceed_everyWriteStays() throws {
        let queue = try Self.table()
        let results = try queue.write { db in try GroupCommitter.run([Self.insert(1), Self.insert(2, 3), Self.insert(4)], in: db) }
        #expect(results.map { (try? $0.get()) as? Int } == [1, 2, 1])
        #expect(try Self.stored(queue) == [1, 2, 3, 4])
    }

    @Test func aUnitFailsAfterWriting_onlyItsWritesAreUndone() throws {
        let queue = try Self.table()
        let results = try queue.write { db in
            try GroupCommitter.run([Self.insert(1), Self.insert(2, 3, thenFail: 2), Self.insert(4)], in: db)
        }
        #expect((try? results[0].get()) as? Int == 1)
        #expect(throws: UnitFailed(unit: 2)) { try results[1].get() }
        #expect((try? results[2].get()) as? Int == 1)
        #expect(try Self.stored(queue) == [1, 4])
    }

    @Test func aConstraintFailsHalfway_laterUnitsSeeEarlierOnes() throws {
        let queue = try Self.table()
        // Unit 2 writes 5, then collides with unit 1's 1; unit 3 may then write 5 itself.
        let results = try queue.write { db in
            try GroupCommitter.run([Self.insert(1), Self.insert(5, 1), Self.insert(5)], in: db)
        }
        #expect((try? results[0].get()) != nil)
        #expect(throws: DatabaseError.self) { try results[1].get() }
        #expect((try? results[2].get()) != nil)
        #expect(try Self.stored(queue) == [1, 5])
    }
}
