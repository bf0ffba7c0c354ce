import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Push devices

extension StoreConformance {
    static func pushDevices_registerReplaceMoveAndRemove_perAppAndVisitor(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let app = fixture.app.id
        let apns = PushDeviceRequest(provider: .apns, token: String(repeating: "ab", count: 32), environment: .sandbox,
                                     encryption: PushEncryptionKeys(publicKey: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                                                                    authSecret: "BTBZMqHH6r4Tts7J_aSIgg"), locale: "de")
        func record(_ device: String, _ request: PushDeviceRequest, visitor: VisitorID? = nil) -> PushDeviceRecord {
            let now = fixture.clock.next()
            return PushDeviceRecord(appID: app, visitorID: visitor ?? fixture.visitor.id, deviceID: device, request: request, createdAt: now, updatedAt: now)
        }

        let first = try await store.registerPushDevice(record("phone", apns))
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: app) == [first])
        #expect(first.device.encrypted && first.device.environment == .sandbox)

        // A new token for the same device replaces the row and keeps when it was first registered.
        var renewed = apns
        renewed.token = String(repeating: "cd", count: 32)
        let second = try await store.registerPushDevice(record("phone", renewed))
        #expect(second.createdAt == first.createdAt && second.request.token == renewed.token)
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: app).map(\.request.token) == [renewed.token])

        // The token registered from another device (another visitor signed in on the phone): it moves.
        let fcm = PushDeviceRequest(provider: .fcm, token: "fcm-token-0123456789abcdef")
        _ = try await store.registerPushDevice(record("tablet", fcm))
        _ = try await store.registerPushDevice(record("tablet-2", renewed, visitor: fixture.otherVisitor.id))
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: app).map(\.deviceID) == ["tablet"])
        #expect(try await store.pushDevices(visitor: fixture.otherVisitor.id, app: app).map(\.deviceID) == ["tablet-2"])

        // Another app sees nothing and cannot register this app's visitor.
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: fixture.otherApp.id).isEmpty)
        var foreign = record("x", fcm)
        foreign.appID = fixture.otherApp.id
        await expectStoreError(.notFound) { _ = try await store.registerPushDevice(foreign) }

        // Removal: only the visitor's own device; a token the provider dropped, wherever it is.
        #expect(try await store.removePushDevice("tablet", visitor: fixture.otherVisitor.id, app: app) == false)
        #expect(try await store.removePushDevice("tablet", visitor: fixture.visitor.id, app: app))
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: app).isEmpty)
        try await store.removePushToken(renewed.token, provider: .apns, app: app)
        #expect(try await store.pushDevices(visitor: fixture.otherVisitor.id, app: app).isEmpty)
    }
}

// MARK: - Push delivery

/// A push-like rule for the tests: one entry per agent message, fanned out to the visitor's devices.
struct PushFanOutEffects: CommitEffects {
    func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry] {
        commit.events.compactMap { event in
            guard event.message != nil, event.author.role == .agent else { return nil }
            return OutboxEntry(
                id: "psh-\(event.seq)", kind: "push", appID: commit.conversation.appID, conversationID: event.conversationID, seq: event.seq,
                payload: "job-\(event.seq)", dueAt: event.createdAt, targets: .pushDevices(visitor: commit.conversation.visitorID))
        }
    }
}

extension StoreConformance {
    /// Push settings round-trip per app (sealed keys as given); an agent's message fans out in its
    /// commit to the visitor's registered devices (not another visitor's); a skipped row is done
    /// with its reason; the admins' list is per app; a device is found per app; the unread count
    /// is the agent's content after the visitor's read marker.
    static func pushOutbox_fansOutToDevices_skipsListsAndCountsUnread(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let app = fixture.app.id
        #expect(try await store.pushSettings(app: app) == nil)
        let settings = StoredPushSettings(
            appID: app, settings: PushSettings(apns: .init(teamID: "TEAM123456", keyID: "KEY1234567", topic: "com.example.app", updatedAt: fixture.clock.next()),
                                               previews: false),
            sealedAPNsKey: "v1.sealed-key", sealedFCMAccount: nil, updatedAt: fixture.clock.next())
        try await store.savePushSettings(settings)
        #expect(try await store.pushSettings(app: app) == settings)
        #expect(try await store.pushSettings(app: fixture.otherApp.id) == nil)
        #expect(try await store.pushApps() == [app])
        var foreign = settings
        foreign.appID = AppID.generate()
        await expectStoreError(.notFound) { try await store.savePushSettings(foreign) }

        func register(_ device: String, token: String, visitor: VisitorID) async throws {
            let now = fixture.clock.next()
            _ = try await store.registerPushDevice(PushDeviceRecord(
                appID: app, visitorID: visitor, deviceID: device, request: PushDeviceRequest(provider: .fcm, token: token), createdAt: now, updatedAt: now))
        }
        try await register("phone", token: "fcm-token-phone-0123456789", visitor: fixture.visitor.id)
        try await register("tablet", token: "fcm-token-tablet-0123456789", visitor: fixture.visitor.id)
        try await register("other-phone", token: "fcm-token-other-0123456789", visitor: fixture.otherVisitor.id)
        #expect(try await store.pushDevice("phone", app: app)?.visitorID == fixture.visitor.id)
        #expect(try await store.pushDevice("phone", app: fixture.otherApp.id) == nil)

        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        #expect(try await store.unreadCount(visitor: fixture.visitor.id, app: app) == 0)
        let visitorsOwn = try await store.commit(.postMessage(.init(
            conversationID: id, appID: app, author: fixture.visitorParticipant, clientMessageID: "v1", text: "hello", reopenRank: 50,
            at: fixture.clock.next())), effects: PushFanOutEffects())
        let reply = try await store.commit(.postMessage(.init(
            conversationID: id, appID: app, author: fixture.agentParticipant, clientMessageID: "a1", text: "hi", reopenRank: 50,
            at: fixture.clock.next())), effects: PushFanOutEffects())
        let seq = reply.events[0].seq
        #expect(try await store.unreadCount(visitor: fixture.visitor.id, app: app) == 1)
        #expect(try await store.unreadCount(visitor: fixture.otherVisitor.id, app: app) == 0)

        let now = fixture.clock.next()
        let rows = try await store.claimOutbox(kind: "push", now: now, lease: 100, limit: 10)
        #expect(Set(rows.map(\.id)) == ["psh-\(seq).phone", "psh-\(seq).tablet"], "the visitor's own message pushes nothing; one row per device")
        #expect(rows.allSatisfy { $0.messageID == "psh-\(seq)" && $0.payload == "job-\(seq)" && $0.conversationID == id })
        #expect(visitorsOwn.events.count == 1)

        try await store.recordOutboxAttempt("psh-\(seq).phone", OutboxAttemptRecord(at: now, status: nil, response: nil, error: nil, duration: 0),
                                            body: nil, outcome: .skipped(reason: "read first"))
        try await store.recordOutboxAttempt("psh-\(seq).tablet", OutboxAttemptRecord(at: now, status: 200, response: "", error: nil, duration: 0.1),
                                            body: "{}", outcome: .delivered)
        let listed = try await store.outboxRows(kind: "push", app: app, limit: 10)
        #expect(Set(listed.map(\.row.id)) == ["psh-\(seq).phone", "psh-\(seq).tablet"])
        let skipped = try #require(listed.first { $0.row.target == "phone" })
        #expect(skipped.status == "skipped" && skipped.lastError == "read first" && skipped.nextAttemptAt == nil && skipped.attempts.count == 1)
        #expect(listed.first { $0.row.target == "tablet" }?.status == "delivered")
        #expect(try await store.outboxRows(kind: "push", app: fixture.otherApp.id, limit: 10).isEmpty)
        #expect(try await store.claimOutbox(kind: "push", now: now.addingTimeInterval(1_000), lease: 100, limit: 10).isEmpty)

        // Read: nothing unread any more.
        _ = try await store.commit(.markRead(.init(conversationID: id, appID: app, by: fixture.visitorParticipant, seq: seq, at: fixture.clock.next())))
        #expect(try await store.unreadCount(visitor: fixture.visitor.id, app: app) == 0)
        #expect(try await store.readSeq(id, participant: fixture.visitorParticipant) == seq)
    }
}
