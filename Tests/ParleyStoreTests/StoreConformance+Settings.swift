import Foundation
import ParleyCore
import ParleyStore
import Testing

extension StoreConformance {
    static func settings_storedPerAppAndKey_replacedAndDeleted(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        #expect(try await store.setting("appearance", app: fixture.app.id) == nil)
        try await store.setSetting("appearance", app: fixture.app.id, value: #"{"title":"A"}"#, at: fixture.clock.next())
        try await store.setSetting("appearance", app: fixture.app.id, value: #"{"title":"B"}"#, at: fixture.clock.next())
        try await store.setSetting("hours:q", app: fixture.app.id, value: "{}", at: fixture.clock.next())
        #expect(try await store.setting("appearance", app: fixture.app.id) == #"{"title":"B"}"#)
        #expect(try await store.setting("appearance", app: fixture.otherApp.id) == nil, "scoped to the app")
        try await store.setSetting("appearance", app: fixture.app.id, value: nil, at: fixture.clock.next())
        #expect(try await store.setting("appearance", app: fixture.app.id) == nil)
        #expect(try await store.setting("hours:q", app: fixture.app.id) == "{}", "other keys stay")
        await expectStoreError(.notFound, "an app that does not exist") {
            try await store.setSetting("appearance", app: AppID.generate(), value: "{}", at: fixture.clock.next())
        }
    }

    static func assignment_recordsHowLongTheConversationWaited(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let start = fixture.clock.now()
        let first = try await fixture.open().conversation
        let second = try await fixture.open().conversation
        let firstAssigned = try await fixture.assign(first.id).conversation
        let secondAssigned = try await fixture.assign(second.id, to: fixture.otherAgentParticipant).conversation
        let samples = try await store.waitSamples(queue: fixture.queue.id, since: start, limit: 10)
        #expect(samples.map(\.assignedAt) == [secondAssigned.updatedAt, firstAssigned.updatedAt], "most recent first")
        #expect(samples.map(\.queuedAt) == [try #require(second.queuedAt), try #require(first.queuedAt)])
        #expect(try await store.waitSamples(queue: fixture.queue.id, since: start, limit: 1).count == 1)
        #expect(try await store.waitSamples(queue: fixture.queue.id, since: fixture.clock.next(), limit: 10).isEmpty)
        #expect(try await store.waitSamples(queue: fixture.otherAppQueue.id, since: start, limit: 10).isEmpty)
    }
}
