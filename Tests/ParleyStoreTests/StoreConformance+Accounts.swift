import Foundation
import ParleyCore
import ParleyStore
import Testing

/// The behaviour every ``ParleyStore`` must have, one method per behaviour, each taking any store.
/// `StoreConformanceTests` runs every method against every ``StoreFactory``.
enum StoreConformance {}

// MARK: - Apps, queues, agents, sessions

extension StoreConformance {
    static func apps_insertFindUpdate_roundTrip(_ store: any ParleyStore) async throws {
        let clock = TestClock()
        let first = App(id: .generate(), name: "Acme", createdAt: clock.next())
        let second = App(id: .generate(), name: "Globex", createdAt: clock.next())
        try await store.insertApp(first, secretKey: "sk_one")
        try await store.insertApp(second, secretKey: "sk_two")

        #expect(try await store.app(first.id) == StoredApp(app: first, secretKey: "sk_one"))
        #expect(try await store.app(second.id) == StoredApp(app: second, secretKey: "sk_two"))
        #expect(try await store.app(AppID.generate()) == nil)
        #expect(try await store.apps() == [first, second])

        var renamed = first
        renamed.name = "Acme Corp"
        try await store.updateApp(renamed, secretKey: nil)
        #expect(try await store.app(first.id) == StoredApp(app: renamed, secretKey: "sk_one"), "a nil secret key keeps the key")
        try await store.updateApp(renamed, secretKey: "sk_rotated")
        #expect(try await store.app(first.id) == StoredApp(app: renamed, secretKey: "sk_rotated"))
        #expect(try await store.app(second.id) == StoredApp(app: second, secretKey: "sk_two"), "other apps are untouched")
    }

    static func queues_insertListUpdate_roundTripPerApp(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        #expect(try await store.queues(app: fixture.app.id) == [fixture.queue, fixture.secondQueue])
        #expect(try await store.queues(app: fixture.otherApp.id) == [fixture.otherAppQueue])

        var renamed = fixture.secondQueue
        renamed.name = "Payments"
        try await store.updateQueue(renamed)
        #expect(try await store.queues(app: fixture.app.id) == [fixture.queue, renamed])
        #expect(try await store.queues(app: fixture.otherApp.id) == [fixture.otherAppQueue])
    }

    static func agents_insertFind_roundTripKeepingQueueOrder(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        // Queue order deliberately differs from creation order: the stored list must keep it.
        let agent = Agent(id: .generate(), appID: fixture.app.id, name: "Cleo", email: "cleo@acme.test", role: .admin,
                          queueIDs: [fixture.secondQueue.id, fixture.queue.id], capacity: 7, availability: .away,
                          isDisabled: true, createdAt: fixture.clock.next())
        try await store.insertAgent(agent, passwordHash: "hash-cleo")

        let stored = try #require(await store.agent(agent.id))
        #expect(stored == StoredAgent(agent: agent, passwordHash: "hash-cleo"))
        #expect(stored.agent.queueIDs == [fixture.secondQueue.id, fixture.queue.id])
        #expect(try await store.agent(email: "cleo@acme.test") == StoredAgent(agent: agent, passwordHash: "hash-cleo"))
        #expect(try await store.agent(AgentID.generate()) == nil)
        #expect(try await store.agent(email: "nobody@acme.test") == nil)
        #expect(try await store.agents(app: fixture.app.id) == [fixture.agent, fixture.otherAgent, agent])
        #expect(try await store.agents(app: fixture.otherApp.id) == [])
        #expect(Set(try await store.allAgents()) == [fixture.agent, fixture.otherAgent, agent])
    }

    static func agentEmail_differingOnlyInCase_isDuplicate(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let ann = Agent(id: .generate(), appID: fixture.app.id, name: "Ann", email: "Ann.Lee@Acme.test", role: .agent,
                        queueIDs: [], capacity: 1, availability: .offline, isDisabled: false, createdAt: fixture.clock.next())
        try await store.insertAgent(ann, passwordHash: "hash-ann")

        // Lookup ignores case.
        #expect(try await store.agent(email: "ann.lee@acme.TEST")?.agent.id == ann.id)

        // Another agent, even of another app, cannot take the same email in any case.
        var clash = ann
        clash.id = .generate()
        clash.appID = fixture.otherApp.id
        clash.email = "ANN.LEE@acme.test"
        await expectStoreError(.duplicate, "insert with the same email in other case") {
            try await store.insertAgent(clash, passwordHash: "hash-clash")
        }
        #expect(try await store.agent(clash.id) == nil, "the rejected agent is not stored")

        // Nor can an existing agent be renamed onto it.
        var renamed = fixture.agent
        renamed.email = "ann.lee@ACME.test"
        await expectStoreError(.duplicate, "update onto a taken email in other case") {
            try await store.updateAgent(renamed, passwordHash: nil)
        }
        #expect(try await store.agent(fixture.agent.id)?.agent.email == fixture.agent.email)
    }

    static func updateAgent_nilPasswordHash_keepsHashAndUpdatesFields(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        var changed = fixture.agent
        changed.name = "Ada L."
        changed.email = "ada.l@acme.test"
        changed.role = .admin
        changed.capacity = 9
        changed.availability = .away
        changed.isDisabled = true
        changed.queueIDs = [fixture.secondQueue.id, fixture.queue.id]

        try await store.updateAgent(changed, passwordHash: nil)
        #expect(try await store.agent(fixture.agent.id) == StoredAgent(agent: changed, passwordHash: "hash-ada"))
        #expect(try await store.agent(email: "ada.l@acme.test")?.agent.queueIDs == [fixture.secondQueue.id, fixture.queue.id])
        #expect(try await store.agent(email: fixture.agent.email) == nil, "the old email no longer finds the agent")

        try await store.updateAgent(changed, passwordHash: "hash-new")
        #expect(try await store.agent(fixture.agent.id)?.passwordHash == "hash-new")
        #expect(try await store.agent(fixture.otherAgent.id)?.passwordHash == "hash-bob", "other agents keep their hash")
    }

    static func sessions_insertFindDelete_roundTrip(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let now = fixture.clock.next()
        let session = AgentSessionRecord(tokenHash: "th-1", agentID: fixture.agent.id, appID: fixture.app.id,
                                         createdAt: now, expiresAt: now.addingTimeInterval(3600))
        let second = AgentSessionRecord(tokenHash: "th-2", agentID: fixture.agent.id, appID: fixture.app.id,
                                        createdAt: now, expiresAt: now.addingTimeInterval(7200))
        try await store.insertSession(session)
        try await store.insertSession(second)

        #expect(try await store.session(tokenHash: "th-1") == session)
        #expect(try await store.session(tokenHash: "th-2") == second)
        #expect(try await store.session(tokenHash: "th-unknown") == nil)

        try await store.deleteSession(tokenHash: "th-1")
        #expect(try await store.session(tokenHash: "th-1") == nil)
        #expect(try await store.session(tokenHash: "th-2") == second, "deleting one session keeps the others")
    }

    static func deleteSessions_agent_removesOnlyThatAgentsSessions(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let now = fixture.clock.next()
        func session(_ hash: String, _ agent: Agent) -> AgentSessionRecord {
            AgentSessionRecord(tokenHash: hash, agentID: agent.id, appID: agent.appID, createdAt: now, expiresAt: now.addingTimeInterval(60))
        }
        for record in [session("a-1", fixture.agent), session("a-2", fixture.agent), session("b-1", fixture.otherAgent)] {
            try await store.insertSession(record)
        }

        try await store.deleteSessions(agent: fixture.agent.id)
        #expect(try await store.session(tokenHash: "a-1") == nil)
        #expect(try await store.session(tokenHash: "a-2") == nil)
        #expect(try await store.session(tokenHash: "b-1") == session("b-1", fixture.otherAgent))
    }
}

// MARK: - Visitors

extension StoreConformance {
    static func upsertVisitor_sameDevice_returnsSameVisitor(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let first = try await store.upsertVisitor(app: fixture.app.id, deviceID: "dev-1", profile: VisitorProfile(), at: fixture.clock.next())
        let again = try await store.upsertVisitor(app: fixture.app.id, deviceID: "dev-1", profile: VisitorProfile(), at: fixture.clock.next())
        #expect(again.id == first.id)
        #expect(again.createdAt == first.createdAt, "the visitor keeps its creation time")
        #expect(first.appID == fixture.app.id)
        #expect(first.deviceID == "dev-1")
        #expect(try await store.visitor(first.id, app: fixture.app.id) == first)

        let otherDevice = try await store.upsertVisitor(app: fixture.app.id, deviceID: "dev-2", profile: VisitorProfile(), at: fixture.clock.next())
        #expect(otherDevice.id != first.id)
    }

    static func upsertVisitor_concurrentSameDevice_returnsOneVisitor(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let visitors = try await withThrowingTaskGroup(of: Visitor.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await store.upsertVisitor(app: fixture.app.id, deviceID: "racing-device", profile: VisitorProfile(), at: fixture.clock.next())
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(visitors.map(\.id)).count == 1, "first contacts racing on one device make one visitor")
        let id = try #require(visitors.first?.id)
        #expect(try await store.visitor(id, app: fixture.app.id)?.deviceID == "racing-device")
    }

    static func upsertVisitor_givenProfileFields_updateAndNilFieldsKeep(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let created = try await store.upsertVisitor(
            app: fixture.app.id, deviceID: "dev-p",
            profile: VisitorProfile(name: "Pat", email: "pat@example.test", attributes: ["tier": "free"]), at: fixture.clock.next())
        #expect(created.name == "Pat")
        #expect(created.email == "pat@example.test")
        #expect(created.attributes == ["tier": "free"])

        let renamed = try await store.upsertVisitor(
            app: fixture.app.id, deviceID: "dev-p", profile: VisitorProfile(name: "Patricia", attributes: ["tier": "gold"]),
            at: fixture.clock.next())
        #expect(renamed.id == created.id)
        #expect(renamed.name == "Patricia")
        #expect(renamed.email == "pat@example.test", "a nil email leaves the email as it is")
        #expect(renamed.attributes["tier"] == "gold")

        let unchanged = try await store.upsertVisitor(app: fixture.app.id, deviceID: "dev-p", profile: VisitorProfile(), at: fixture.clock.next())
        #expect(unchanged == renamed, "an empty profile changes nothing")
        #expect(try await store.visitor(created.id, app: fixture.app.id) == renamed, "the update is stored, not only returned")
    }

    static func upsertVisitor_sameDeviceOtherApp_isDifferentVisitor(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let mine = try await store.upsertVisitor(app: fixture.app.id, deviceID: "shared-device", profile: VisitorProfile(name: "A"), at: fixture.clock.next())
        let theirs = try await store.upsertVisitor(app: fixture.otherApp.id, deviceID: "shared-device", profile: VisitorProfile(name: "B"), at: fixture.clock.next())
        #expect(mine.id != theirs.id)
        #expect(theirs.appID == fixture.otherApp.id)
        #expect(try await store.visitor(mine.id, app: fixture.app.id)?.name == "A", "the other app's upsert did not touch this visitor")
        #expect(try await store.visitor(theirs.id, app: fixture.otherApp.id)?.name == "B")
    }

    static func visitor_otherApp_isNil(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        #expect(try await store.visitor(fixture.visitor.id, app: fixture.app.id) == fixture.visitor)
        #expect(try await store.visitor(fixture.visitor.id, app: fixture.otherApp.id) == nil)
        #expect(try await store.visitor(VisitorID.generate(), app: fixture.app.id) == nil)
    }
}

// MARK: - Verified visitors

extension StoreConformance {
    static func verifiedVisitor_firstSignIn_makesTheUser_andTakesTheDevicesConversations(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let anonymous = try await store.upsertVisitor(app: fixture.app.id, deviceID: "device-ann", profile: VisitorProfile(name: "guest"), at: fixture.clock.next())
        let conversation = try await fixture.open(by: anonymous).conversation.id
        let author = Participant.visitor(anonymous.id, name: anonymous.name)
        try await fixture.post(conversation, by: author, text: "before signing in")
        try await fixture.markRead(conversation, by: author, seq: 2)

        let signedIn = try await store.verifiedVisitor(
            app: fixture.app.id, userID: "user-ann", deviceID: "device-ann", profile: VisitorProfile(name: "Ann Lee", attributes: ["plan": "gold"]),
            verifiedFields: ["name", "attributes.plan"], at: fixture.clock.next())
        let user = signedIn.visitor
        #expect(user.id != anonymous.id, "a new visitor: the anonymous one's token must not reach the user's conversations")
        #expect(user.userID == "user-ann" && user.deviceID == Visitor.userDeviceID("user-ann"))
        #expect(user.name == "Ann Lee" && user.attributes == ["plan": "gold"])
        #expect(user.verifiedFields == ["attributes.plan", "name"])
        #expect(signedIn.movedConversations == [conversation])
        #expect(try await store.visitor(user.id, app: fixture.app.id) == user)

        #expect(try await store.conversation(conversation, app: fixture.app.id)?.visitorID == user.id)
        #expect(try await store.conversations(ConversationQuery(appID: fixture.app.id, visitorID: anonymous.id)).isEmpty)
        #expect(try await store.conversations(ConversationQuery(appID: fixture.app.id, visitorID: user.id)).map(\.id) == [conversation])
        let reread = try await fixture.markRead(conversation, by: .visitor(user.id, name: user.name), seq: 2)
        #expect(reread.events.isEmpty, "the read position moved with the conversation")

        let nextOnDevice = try await store.upsertVisitor(app: fixture.app.id, deviceID: "device-ann", profile: VisitorProfile(), at: fixture.clock.next())
        #expect(nextOnDevice.id == anonymous.id && nextOnDevice.userID == nil, "the device stays anonymous for whoever uses it next")
    }

    static func verifiedVisitor_anotherDevice_isTheSameUser_andBringsItsConversations(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let first = try await store.verifiedVisitor(
            app: fixture.app.id, userID: "user-bo", deviceID: "phone-bo", profile: VisitorProfile(name: "Bo"), verifiedFields: ["name"],
            at: fixture.clock.next())
        #expect(first.movedConversations.isEmpty)
        let tablet = try await store.upsertVisitor(app: fixture.app.id, deviceID: "tablet-bo", profile: VisitorProfile(), at: fixture.clock.next())
        let older = try await fixture.open(by: tablet).conversation.id
        let newer = try await fixture.open(by: tablet, queue: fixture.secondQueue).conversation.id

        let second = try await store.verifiedVisitor(
            app: fixture.app.id, userID: "user-bo", deviceID: "tablet-bo", profile: VisitorProfile(email: "bo@example.com"),
            verifiedFields: ["email"], at: fixture.clock.next())
        #expect(second.visitor.id == first.visitor.id)
        #expect(second.visitor.name == "Bo" && second.visitor.email == "bo@example.com", "fields not given are kept")
        #expect(second.visitor.verifiedFields == ["email"], "the latest proof says what is verified")
        #expect(second.movedConversations == [older, newer])
        #expect(Set(try await store.conversations(ConversationQuery(appID: fixture.app.id, visitorID: first.visitor.id)).map(\.id)) == [older, newer])

        let again = try await store.verifiedVisitor(
            app: fixture.app.id, userID: "user-bo", deviceID: "tablet-bo", profile: VisitorProfile(), verifiedFields: ["email"], at: fixture.clock.next())
        #expect(again.movedConversations.isEmpty, "nothing left to move")

        let otherApp = try await store.verifiedVisitor(
            app: fixture.otherApp.id, userID: "user-bo", deviceID: "phone-bo", profile: VisitorProfile(), verifiedFields: [], at: fixture.clock.next())
        #expect(otherApp.visitor.id != first.visitor.id, "the same user id in another app is another user")
        #expect(try await store.visitor(first.visitor.id, app: fixture.otherApp.id) == nil)
    }

    static func verifiedVisitor_concurrentFirstSignIns_makeOneUser(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let ids = try await withThrowingTaskGroup(of: VisitorID.self) { group in
            for index in 0..<12 {
                group.addTask {
                    try await store.verifiedVisitor(
                        app: fixture.app.id, userID: "user-race", deviceID: "device-\(index)", profile: VisitorProfile(),
                        verifiedFields: [], at: fixture.clock.next()).visitor.id
                }
            }
            return try await group.reduce(into: Set<VisitorID>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
    }

    static func verifiedVisitor_unknownApp_isNotFound(_ store: any ParleyStore) async throws {
        await expectStoreError(.notFound) {
            try await store.verifiedVisitor(app: AppID(rawValue: "app_missing"), userID: "u", deviceID: "device-x", profile: VisitorProfile(),
                                            verifiedFields: [], at: Date(timeIntervalSince1970: 1_800_000_000))
        }
    }
}

// MARK: - Signed-out visitor tokens

extension StoreConformance {
    static func revokedVisitorTokens_areRefusedUntilTheyExpire_thenForgotten(_ store: any ParleyStore) async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await store.isVisitorTokenRevoked(hash: "a") == false)
        try await store.revokeVisitorToken(hash: "a", expiresAt: now.addingTimeInterval(60), now: now)
        try await store.revokeVisitorToken(hash: "a", expiresAt: now.addingTimeInterval(60), now: now)  // twice is once
        try await store.revokeVisitorToken(hash: "b", expiresAt: now.addingTimeInterval(3_600), now: now)
        #expect(try await store.isVisitorTokenRevoked(hash: "a"))
        #expect(try await store.isVisitorTokenRevoked(hash: "b"))
        #expect(try await store.isVisitorTokenRevoked(hash: "c") == false)
        // Once "a" could no longer be used anyway, the next sign-out forgets it.
        try await store.revokeVisitorToken(hash: "c", expiresAt: now.addingTimeInterval(7_200), now: now.addingTimeInterval(61))
        #expect(try await store.isVisitorTokenRevoked(hash: "a") == false)
        #expect(try await store.isVisitorTokenRevoked(hash: "b"))
        #expect(try await store.isVisitorTokenRevoked(hash: "c"))
    }
}
