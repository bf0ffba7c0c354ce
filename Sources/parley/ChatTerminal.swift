import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO

/// `parley chat` at work: a ParleyClient, its events printed, the lines typed sent.
struct ChatTerminal {
    let command: ChatCommand

    func run() async throws {
        let serverURL = try command.server.serverURL
        var configuration = ParleyConfiguration(serverURL: serverURL, appID: command.app)
        configuration.userName = command.name
        configuration.userEmail = command.email
        configuration.defaultQueueID = command.queue
        if let storage = command.storage { configuration.storage = .directory(URL(fileURLWithPath: storage)) }
        let client = ParleyClient(configuration: configuration, transport: NIOWebSocketTransport())
        let events = await client.events()
        try await client.start()
        defer { Task { await client.stop() } }

        // Continue this device's open conversation, or open a new one.
        let conversation = try await withServerErrors(server: serverURL) {
            if let existing = try await client.conversations().first(where: { $0.state != .ended }) { return existing }
            return try await client.openConversation(subject: command.subject)
        }
        let model = try await client.conversation(conversation.id)
        TerminalIO.say("· conversation \(conversation.id) (\(conversation.state.rawValue)); type a message and Enter, /end to end")
        for message in await model.messages {
            TerminalIO.say("\(message.isMine ? "you" : (message.author.name ?? "agent")): \(message.text)")
        }

        let printer = Task {
            for await event in events { Self.print(event, in: conversation.id) }
        }
        defer { printer.cancel() }
        for await line in TerminalIO.lines() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text == "/end" {
                try await withServerErrors(server: serverURL) { try await client.end(conversation.id) }
                TerminalIO.say("· you ended the conversation")
                break
            }
            do {
                try await client.send(text, in: conversation.id)
            } catch let error as ParleyError {
                TerminalIO.say("· not sent: \(error.message)")
            }
        }
        // Let the outbox deliver what was typed last before leaving (bounded).
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, await model.messages.contains(where: { $0.deliveryState == .pending }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        await client.stop()
    }

    static func print(_ event: ParleyEvent, in conversation: ConversationID) {
        switch event {
        case .queuePosition(let position, conversation):
            TerminalIO.say("· waiting for an agent: position \(position) in the queue")
        case .event(let event) where event.conversationID == conversation:
            switch event.body {
            case .message(let message) where event.author.role != .visitor:
                TerminalIO.say("\(event.author.name ?? "agent"): \(message.text)")
            case .participantJoined(let joined):
                TerminalIO.say("· \(joined.participant.name ?? "an agent") joined")
            case .participantLeft(let left):
                TerminalIO.say("· \(left.participant.name ?? "the agent") left")
            case .stateChanged(let change) where change.to == .ended:
                TerminalIO.say("· the conversation ended")
            default:
                break
            }
        case .typing(let who, true, conversation):
            TerminalIO.say("· \(who.name ?? "the agent") is typing…")
        case .failed(let message, conversation):
            if case .failed(let reason) = message.deliveryState { TerminalIO.say("· not delivered: \(reason)") }
        case .connection(.waitingToReconnect(let delay)):
            TerminalIO.say("· connection lost; retrying in \(delay.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))")
        case .connection(.failed(let error)):
            TerminalIO.say("· cannot connect: \(error.message)")
        default:
            break
        }
    }
}
