import Foundation
import ParleyTestSupport
import Testing

/// `parleyd migrate`, run as the real executable on a data directory.
@Suite("parleyd migrate")
struct ParleydMigrateTests {
    @Test func migrate_freshThenAgain_appliesOnceAndListsEveryMigration() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parleyd-migrate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["PARLEY_DATABASE_URL": ""]  // SQLite in the folder, whatever the caller's shell says

        for run in 1...2 {
            let migrate = try ChildProcess("parleyd", arguments: ["migrate", "--data-dir", folder.path], environment: environment)
            #expect(try await migrate.waitForExit() == 0, "run \(run): \(migrate.printed)")
            let lines = migrate.printed.split(separator: "\n").map(String.init)
            #expect(lines.first == "\(folder.appendingPathComponent("parley.sqlite").path): schema up to date, 20 migrations applied",
                    "run \(run): \(migrate.printed)")
            #expect(Array(lines.dropFirst()) == ["  0001-core", "  0002-desk", "  0003-nodes", "  0004-ratings", "  0005-settings", "  0006-forms", "  0007-mail", "  0008-outbox", "  0009-lean-conversation-indexes", "  0010-verified-visitors", "  0011-revoked-visitor-tokens", "  0012-attachments", "  0013-webhooks", "  0014-push-devices", "  0015-push-settings", "  0016-callbacks", "  0017-search", "  0018-triage", "  0019-reports", "  0020-personal-canned-responses"])
        }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("parley.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("token.key").path),
                "migrate touches the schema only")
    }

    @Test func migrate_unreachableDatabase_failsWithoutHanging() async throws {
        let migrate = try ChildProcess("parleyd", arguments: [
            "migrate", "--database", "postgres://parley@127.0.0.1:9/parley?connect_timeout=2",
        ])
        #expect(try await migrate.waitForExit(timeout: .seconds(60)) != 0, "\(migrate.printed)")
    }
}
