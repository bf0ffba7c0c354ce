import ArgumentParser
import Foundation
import ParleyStore

/// `parleyd migrate`: brings the database's schema up to this version and says where it stands.
///
/// `serve` migrates at start too (on PostgreSQL under an advisory lock, so nodes starting together
/// migrate once). This command is for upgrades done on purpose: migrate once, then start the new
/// nodes; see docs/operations.md.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending schema migrations to the database, print the applied ones, and exit.",
        discussion: """
            parleyd migrate                                      # SQLite in ./data
            parleyd migrate --database postgres://parley@db/parley
            """)

    @OptionGroup var common: CommonOptions

    func run() async throws {
        let store = try await common.openStore()
        let applied = try await store.appliedMigrations()
        try await store.close()
        let place = common.resolvedDatabase.map(Self.redacted) ?? DataDirectory(path: common.resolvedDataDirectory).databasePath
        print("\(place): schema up to date, \(applied.count) migrations applied")
        for name in applied { print("  \(name)") }
    }

    /// A database URL without its password, for printing.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
