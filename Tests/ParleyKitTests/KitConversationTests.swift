import Foundation
import ParleyCore
import ParleyKit
import ParleyTestSupport
import Testing

@Suite(.timeLimit(.minutes(2)))
struct KitConversationTests {
    @Test func visitorAndAgent_converse_visitorSeesQueuePositionJoinTypingAndReplies() async throws {
        try await withServer { server in
            let kit = KitHarness(server: server)
            let visitor = kit.visitor(name: "Ann")
            let visitorEvents = await visitor.events()
            try await visitor.start()
            let conversation = try await visitor.openConversation(subject: "Where is my parcel?")
            let position = try await first(visitorEvents) { if case .queuePosition(1, conversation.id) = $0 { true } else { false } }
            #expect(position == .queuePosition(1, in: conversation.id))

            let agent = try await kit.onlineAgent(name: "Bob")
            let agentEvents = await agent.events()
            _ = try await first(visitorEvents) { event in
                if case .event(let e) = event, case .participantJoined(let joined) = e.body { return joined.participant.name == "Bob" }
                return false
            }
            let model = try await visitor.conversation(conversation.id)
            #expect(await model.state == .assigned)
            #expect(await model.agent?.name == "Bob")

            let sent = try await visitor.send("Hello, anyone?", in: conversation.id)
            #expect(sent.deliveryState == .pending)
            let delivered = try await first(visitorEvents) { if case .delivered(let m, _) = $0 { m.id == sent.id } else { false } }
            guard case .delivered(let deliveredMessage, _) = delivered else { throw TestFailure("not delivered") }
            #expect(deliveredMessage.seq != nil)
            _ = try await first(agentEvents) { if case .event(let e) = $0 { e.message?.text == "Hello, anyone?" } else { false } }

            await agent.setTyping(true, in: conversation.id)
            _ = try await first(visitorEvents) { if case .typing(let who, true, conversation.id) = $0 { who.role == .agent } else { false } }
            try await agent.reply("Yes! Looking now.", in: conversation.id)
            _ = try await first(visitorEvents) { if case .event(let e) = $0 { e.message?.text == "Yes! Looking now." } else { false } }
            let messages = await model.messages
            #expect(messages.map(\.text) == ["Hello, anyone?", "Yes! Looking now."])
            #expect(messages.map(\.deliveryState) == [.sent, .sent])
            #expect(messages.map(\.isMine) == [true, false])

            // Save and print: the SDK's transcript is the server's, and says what was written.
            let transcript = try await visitor.transcript(of: conversation.id)
            #expect(transcript.lines.compactMap { if case .message(_, let text) = $0.content { text } else { nil } }
                    == ["Hello, anyone?", "Yes! Looking now."])
            #expect(transcript.plainText().contains("Yes! Looking now."))
            #expect(try await agent.transcript(of: conversation.id).lines == transcript.lines, "the agent's transcript says the same")

            try await agent.end(conversation.id)
            _ = try await first(visitorEvents) { if case .event(let e) = $0, case .stateChanged(let c) = e.body { c.to == .ended } else { false } }
            #expect(await model.state == .ended)
            let rating = try await visitor.rate(conversation.id, score: 5, comment: "Quick and kind")
            let agentID = await agent.agent?.id
            #expect(rating.score == 5 && rating.agentID == agentID)
            await visitor.stop()
            await agent.stop()
        }
    }

    @Test func unreadCount_risesOnAgentReplies_andDropsToZeroWhenReadOnAnotherDevice() async throws {
        try await withServer { server in
            let kit = KitHarness(server: server)
            let phone = kit.visitor(name: "Ann")
            let phoneEvents = await phone.events()
            try await phone.start()
            let conversation = try await phone.openConversation()
            let agent = try await kit.onlineAgent()
            _ = try await first(phoneEvents) { if case .event(let e) = $0 { e.body.type == "participant_joined" } else { false } }
            try await agent.reply("First", in: conversation.id)
            _ = try await first(phoneEvents) { if case .unread(1, true) = $0 { true } else { false } }
            try await agent.reply("Second", in: conversation.id)
            _ = try await first(phoneEvents) { if case .unread(2, true) = $0 { true } else { false } }
            #expect(await phone.state.unreadCount == 2)

            // The same user on a tablet: same device-bound identity, so copy the phone's secrets.
            let phoneSecrets = try FileStorage(directory: phone.configuration.storage.directoryURL).loadSecrets()
            let tabletDirectory = kit.storageDirectory()
            try FileStorage(directory: tabletDirectory).saveSecrets(try #require(phoneSecrets))
            let tablet = kit.visitor(name: "Ann", storage: tabletDirectory)
            try await tablet.start()
            let onTablet = try await tablet.conversation(conversation.id)
            try await waitUntil { await onTablet.messages.count == 2 }
            try await tablet.markRead(conversation.id)
            _ = try await first(phoneEvents) { if case .unread(0, false) = $0 { true } else { false } }
            #expect(await phone.state.unreadCount == 0)
            await phone.stop()
            await tablet.stop()
            await agent.stop()
        }
    }
}
