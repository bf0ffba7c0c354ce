import Foundation
import ParleyCore
import ParleyStore
import Testing

/// A webhook-like rule for the tests: one entry per message, fanned out to the app's endpoints
/// that take `message.created`; a rating makes one row of its own.
struct FanOutEffects: CommitEffects {
    func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry] {
        commit.events.compactMap { event in
            guard let message = event.message else { return nil }
            return OutboxEntry(
                id: "msg-\(event.seq)", kind: "webhook", appID: commit.conversation.appID, conversationID: event.conversationID, seq: event.seq,
                payload: message.text, dueAt: event.createdAt, targets: .webhookEndpoints(event: "message.created"))
        }
    }

    func entries(for rating: Rating, conversation: Conversation) -> [OutboxEntry] {
        [OutboxEntry(id: "rating-\(rating.score)", kind: "rated", appID: conversation.appID, conversationID: conversation.id,
                     seq: conversation.lastSeq, payload: "\(rating.score)", dueAt: rating.updatedAt)]
    }
}

extension StoreConformance {
    static func webhookEndpoint(_ fixture: Fixture, app: AppID? = nil, events: [WebhookEventType] = [], enabled: Bool = true) -> StoredWebhookEndpoint {
        let now = fixture.clock.next()
        return StoredWebhookEndpoint(
            endpoint: WebhookEndpoint(
                id: .generate(at: now), appID: app ?? fixture.app.id, url: "https://hooks.example.com/\(UUID().uuidString)", description: "test",
                events: events, isEnabled: enabled, disabledReason: enabled ? nil : "off", previousSecretExpiresAt: nil, createdAt: now, updatedAt: now),
            sealedSecret: "sealed-1", sealedPreviousSecret: nil)
    }

    /// Endpoints round-trip per app; an entry fans out in the commit to the enabled endpoints that
    /// take its event; claims take due rows in order per conversation and endpoint, hold them for
    /// the lease, and every attempt is recorded; a target given up is disabled and its rows held
    /// until it is enabled again; a resend makes a row due again; a deleted endpoint's rows are given up.
    static func webhookOutbox_fansOutClaimsInOrder_recordsHoldsAndResends(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let messages = webhookEndpoint(fixture, events: [.messageCreated, .ratingCreated])
        let everything = webhookEndpoint(fixture)
        let endings = webhookEndpoint(fixture, events: [.conversationEnded])
        let disabled = webhookEndpoint(fixture, enabled: false)
        let otherApps = webhookEndpoint(fixture, app: fixture.otherApp.id)
        for endpoint in [messages, everything, endings, disabled, otherApps] { try await store.insertWebhookEndpoint(endpoint) }
        await expectStoreError(.notFound) { try await store.insertWebhookEndpoint(webhookEndpoint(fixture, app: AppID.generate())) }
        #expect(try await store.webhookEndpoints(app: fixture.app.id).map(\.endpoint.id) == [messages, everything, endings, disabled].map(\.endpoint.id))
        #expect(try await store.webhookEndpoint(otherApps.endpoint.id, app: fixture.app.id) == nil)
        #expect(try await store.webhookEndpoint(messages.endpoint.id, app: fixture.app.id) == messages)
        #expect(try await store.webhookApps() == [fixture.app.id, fixture.otherApp.id])

        let id = try await fixture.open().conversation.id
        var seqs: [Int64] = []
        for text in ["one", "two"] {
            let commit = try await store.commit(.postMessage(.init(
                conversationID: id, appID: fixture.app.id, author: fixture.visitorParticipant, clientMessageID: text, text: text, reopenRank: 50,
                at: fixture.clock.next())), effects: FanOutEffects())
            seqs.append(commit.events[0].seq)
        }
        let (m, e) = (messages.endpoint.id.rawValue, everything.endpoint.id.rawValue)
        let now = fixture.clock.next()
        let lease: TimeInterval = 1_000
        // The first message for each subscribed endpoint; the second waits behind it.
        let first = try await store.claimOutbox(kind: "webhook", now: now, lease: lease, limit: 10)
        #expect(Set(first.map(\.id)) == ["msg-\(seqs[0]).\(m)", "msg-\(seqs[0]).\(e)"])
        #expect(first.allSatisfy { $0.messageID == "msg-\(seqs[0])" && $0.payload == "one" && $0.attempts == 0 && $0.body == nil })
        #expect(Set(first.map(\.target)) == [m, e])
        #expect(try await store.claimOutbox(kind: "webhook", now: now, lease: lease, limit: 10).isEmpty, "held for the lease")

        let attempt = OutboxAttemptRecord(at: now, status: 500, response: "no", error: nil, duration: 0.25)
        try await store.recordOutboxAttempt("msg-\(seqs[0]).\(m)", attempt, body: "body-1", outcome: .retry(at: now.addingTimeInterval(60)))
        try await store.recordOutboxAttempt("msg-\(seqs[0]).\(e)", OutboxAttemptRecord(at: now, status: 204, response: nil, error: nil, duration: 0.1),
                                            body: "body-1", outcome: .delivered)
        #expect(try await store.claimOutbox(kind: "webhook", now: now, lease: lease, limit: 10).map(\.id) == ["msg-\(seqs[1]).\(e)"])
        let retried = try await store.claimOutbox(kind: "webhook", now: now.addingTimeInterval(61), lease: lease, limit: 10)
        #expect(retried.map(\.id) == ["msg-\(seqs[0]).\(m)"])
        #expect(retried.first?.attempts == 1 && retried.first?.body == "body-1")

        // Given up, disabling its endpoint: its later row is held, even when due.
        try await store.recordOutboxAttempt("msg-\(seqs[0]).\(m)", OutboxAttemptRecord(at: now, status: nil, response: nil, error: "refused", duration: 0),
                                            body: "ignored", outcome: .failed(disablingTarget: "kept failing"))
        let off = try #require(try await store.webhookEndpoint(messages.endpoint.id, app: fixture.app.id))
        #expect(!off.endpoint.isEnabled && off.endpoint.disabledReason == "kept failing")
        #expect(try await store.claimOutbox(kind: "webhook", now: now.addingTimeInterval(5_000), lease: lease, limit: 10).map(\.id) == ["msg-\(seqs[1]).\(e)"],
                "only the other endpoint's row, whose lease ran out")
        let record = try #require(try await store.outboxRow("msg-\(seqs[0]).\(m)", kind: "webhook", target: m))
        #expect(record.status == "failed" && record.row.body == "body-1" && record.lastError == "refused" && record.nextAttemptAt == nil)
        #expect(record.attempts.map(\.status) == [500, nil] && record.attempts.first?.response == "no" && record.attempts.first?.duration == 0.25)

        // Enabled again: the held row is due at once; a resend makes the given-up one due again, first.
        #expect(try await store.setWebhookEndpointEnabled(messages.endpoint.id, app: fixture.app.id, enabled: true, reason: nil, at: now))
        #expect(try await store.resendOutbox("msg-\(seqs[0]).\(m)", kind: "webhook", target: m, at: now))
        #expect(try await !store.resendOutbox("msg-\(seqs[0]).\(m)", kind: "webhook", target: e + "x", at: now))
        #expect(try await store.claimOutbox(kind: "webhook", now: now, lease: lease, limit: 10).map(\.id) == ["msg-\(seqs[0]).\(m)"])
        #expect(try await store.outboxRows(kind: "webhook", target: e, limit: 10).map(\.row.id) == ["msg-\(seqs[1]).\(e)", "msg-\(seqs[0]).\(e)"])

        // Updated, then deleted: its waiting rows are given up; another app cannot touch it.
        var changed = everything
        changed.endpoint.url = "https://hooks.example.com/changed"
        changed.endpoint.events = [.ratingCreated]
        changed.sealedPreviousSecret = "sealed-0"
        try await store.updateWebhookEndpoint(changed)
        #expect(try await store.webhookEndpoint(everything.endpoint.id, app: fixture.app.id)?.endpoint.events == [.ratingCreated])
        #expect(try await !store.deleteWebhookEndpoint(everything.endpoint.id, app: fixture.otherApp.id, at: now))
        #expect(try await !store.setWebhookEndpointEnabled(everything.endpoint.id, app: fixture.otherApp.id, enabled: false, reason: "x", at: now))
        #expect(try await store.deleteWebhookEndpoint(everything.endpoint.id, app: fixture.app.id, at: now))
        #expect(try await store.outboxRow("msg-\(seqs[1]).\(e)", kind: "webhook", target: e)?.status == "failed")

        // A rating's rows are stored in its own transaction.
        try await fixture.assign(id)
        try await fixture.end(id, by: fixture.agentParticipant)
        _ = try await store.rate(NewRating(conversationID: id, appID: fixture.app.id, visitorID: fixture.visitor.id, score: 5, comment: nil,
                                           at: fixture.clock.next()), effects: FanOutEffects())
        #expect(try await store.pendingOutbox(kind: "rated", limit: 10).map(\.payload) == ["5"])
        await expectStoreError(.notFound) {
            _ = try await store.rate(NewRating(conversationID: id, appID: fixture.otherApp.id, visitorID: fixture.visitor.id, score: 4, comment: nil,
                                               at: fixture.clock.next()), effects: FanOutEffects())
        }
        #expect(try await store.pendingOutbox(kind: "rated", limit: 10).count == 1, "a refused rating stores no row")
    }
}
