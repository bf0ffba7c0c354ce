import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

/// ParleyKit's callback requests against the real server: asked for, offered through the event
/// stream, answered from the dialog the event leads to, followed in the conversation's model, and
/// recorded by the agent's client, on SQLite and (with `PARLEY_TEST_DATABASE_URL`) PostgreSQL.
@Suite("ParleyKit callbacks", .serialized)
struct KitCallbackTests {
    @Test(arguments: TestStore.available)
    func requestCallback_offerArrivesAsAnEvent_theMenusChoiceConfirms_agentRecordsTheOutcome(_ store: TestStore) async throws {
        try await withServer(on: store) { server in
            let harness = KitHarness(server: server)
            let storage = harness.storageDirectory()
            defer { try? FileManager.default.removeItem(at: storage) }
            let client = harness.visitor(name: "Vera", storage: storage)
            let events = await client.events()
            try await client.start()

            await #expect(throws: ParleyError.self) { try await client.requestCallback(.callMe, phone: "not a number") }
            let view = try await client.requestCallback(.callMe, phone: "030 901820", defaultCallingCode: "49", subject: "Router")
            #expect(view.callback.phone == "+4930901820" && view.callback.status == .waiting)
            let model = try await client.conversation(view.conversation.id)
            #expect(await MainActor.run { model.callback?.status == .waiting && model.queuePosition == 1 })

            let agent = try await harness.onlineAgent(name: "Ada", capacity: 1)
            let offered = try await first(events) { event in
                if case .event(let stored) = event, case .callback(let change) = stored.body { change.action == .offered } else { false }
            }
            guard case .event(let offer) = offered else { throw TestFailure("unreachable") }
            let menu = try #require(try await client.dialog(for: offer))
            guard case .menu(_, let groups) = menu.content, let ready = groups.first?.items.first else { throw TestFailure("an offer shows a menu: \(menu)") }
            #expect(ready.action == .confirm && ready.confirmation?.text == CallbackDialogTexts().callingYou)
            #expect(await MainActor.run { model.callback?.status == .offered })

            // A push about the request leads to the same dialog.
            let push = PushContent(kind: .callbackOffered, conversationID: view.conversation.id, title: "Parley", callbackID: view.callback.id, callbackAction: .dialog)
            #expect(try await client.dialog(for: push) == menu)
            #expect(try await client.dialog(for: PushContent(kind: .message, conversationID: view.conversation.id, title: "Ada")) == nil)

            let after = try await client.perform(ready, of: menu)
            #expect(after.content == .confirmation(text: CallbackDialogTexts().callingYou, okTitle: "OK"))
            _ = try await first(events) { event in
                if case .event(let stored) = event, case .callback(let change) = stored.body { change.action == .confirmed } else { false }
            }
            #expect(await MainActor.run { model.callback?.status == .connecting && model.agent?.name == "Ada" })

            let ended = try await agent.recordCallbackOutcome(.connected, in: view.conversation.id)
            #expect(ended.state == .ended && ended.callback?.outcome == .connected)
            _ = try await first(events) { event in
                if case .event(let stored) = event, case .callback(let change) = stored.body { change.action == .completed } else { false }
            }
            #expect(await MainActor.run { model.callback?.status == .ended && model.state == .ended })
            await #expect(throws: ParleyError.self) { try await client.perform(.snooze, on: view.callback.id) }
            await agent.stop()
            await client.stop()
        }
    }
}
