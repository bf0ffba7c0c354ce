import Foundation
import ParleyStore
import Testing

// MARK: - Schema and shared secrets (what several nodes and `parleyd migrate` rely on)

extension StoreConformance {
    static func appliedMigrations_listsEveryMigrationInOrder(_ store: any ParleyStore) async throws {
        #expect(try await store.appliedMigrations() == ["0001-core", "0002-desk", "0003-nodes", "0004-ratings", "0005-settings", "0006-forms", "0007-mail", "0008-outbox", "0009-lean-conversation-indexes", "0010-verified-visitors", "0011-revoked-visitor-tokens", "0012-attachments", "0013-webhooks", "0014-push-devices", "0015-push-settings", "0016-callbacks", "0017-search", "0018-triage", "0019-reports", "0020-personal-canned-responses"])
    }

    /// Two stores opened on one database stand for two parleyd nodes: whichever proposes first,
    /// both end up with the same secret, also when they race.
    static func sharedSecret_firstProposalWins_forEveryProcessOnTheDatabase(
        open: @Sendable () async throws -> any ParleyStore
    ) async throws {
        let first = try await open(), second = try await open()
        let a = Data(repeating: 0xA1, count: 32), b = Data(repeating: 0xB2, count: 32)

        #expect(try await first.sharedSecret("token_key", proposed: a) == a)
        #expect(try await second.sharedSecret("token_key", proposed: b) == a, "the second node gets the first node's key")
        #expect(try await first.sharedSecret("token_key", proposed: b) == a, "asking again changes nothing")

        // A race between the two for a new name: one proposal wins, both see it.
        async let fromFirst = first.sharedSecret("race", proposed: a)
        async let fromSecond = second.sharedSecret("race", proposed: b)
        let (x, y) = try await (fromFirst, fromSecond)
        #expect(x == y)
        #expect([a, b].contains(x))
        #expect(try await second.sharedSecret("other", proposed: b) == b, "names are separate")

        try await first.close()
        try await second.close()
    }
}
