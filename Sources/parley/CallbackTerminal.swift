import Foundation
import ParleyCore
import ParleyKit

/// `parley chat --callback KIND`: asks for a callback instead of a chat, then shows what happens
/// to it as a phone app would: the queue position, the menu when an agent is ready (answered by
/// typing its number), the number to dial or the note that the call is coming, and for
/// `notify_and_chat` the chat with the agent. Typed lines are sent as messages to the request's
/// conversation; `/cancel` cancels the request, `/end` ends the chat.
struct CallbackTerminal {
    let command: ChatCommand
    let client: ParleyClient
    let serverURL: URL

    /// What comes in: a typed line, the end of input, or an event of the client.
    enum Input: Sendable {
        case line(String)
        case endOfInput
        case event(ParleyEvent)
    }

    func run(events: AsyncStream<ParleyEvent>) async throws {
        guard let kind = command.callback else { return }
        let window = command.callbackAt.map { ParleyClient.CallbackWindow(start: $0, end: command.callbackUntil) }
        let view = try await withServerErrors(server: serverURL) {
            try await client.requestCallback(kind, phone: command.phone, defaultCallingCode: command.callingCode, window: window,
                                             queue: command.queue, subject: command.subject)
        }
        let id = view.callback.id, conversation = view.conversation.id
        TerminalIO.say("· callback \(id) requested (\(Self.describe(view.callback))); /cancel to cancel it")
        Self.sayStatus(view.callback, position: view.conversation.queuePosition)

        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        let reader = Thread {
            while let line = readLine(strippingNewline: true) { feed.yield(.line(line)) }
            feed.yield(.endOfInput)
        }
        reader.start()
        let relay = Task {
            for await event in events { feed.yield(.event(event)) }
        }
        defer { relay.cancel() }

        let files = ReceivedFiles()
        var menu: CallbackDialog?
        var chatting = false
        for await input in inputs {
            switch input {
            case .endOfInput:
                return
            case .event(.queuePosition(let position, conversation)):
                TerminalIO.say("· waiting for an agent: position \(position) in the queue")
            case .event(.event(let event)) where event.conversationID == conversation:
                guard case .callback(let change) = event.body else {
                    await ChatTerminal.print(.event(event), in: conversation, files: files)
                    continue
                }
                switch change.action {
                case .offered:
                    let dialog = try await withServerErrors(server: serverURL) { try await client.dialog(for: id) }
                    Self.say(dialog)
                    if case .menu = dialog.content { menu = dialog }
                case .requeued:
                    menu = nil
                    TerminalIO.say("· the offer went unanswered; your request is back in the queue")
                case .due:
                    TerminalIO.say("· your request is back in the queue")
                case .rescheduled:
                    menu = nil
                    TerminalIO.say("· the agent will try again \(Self.time(change.callback.scheduledUntil))")
                case .completed:
                    TerminalIO.say("· callback done\(change.callback.outcome.map { " (\($0.rawValue.replacingOccurrences(of: "_", with: " ")))" } ?? "")")
                    return
                case .expired:
                    TerminalIO.say("· the offer went unanswered; the request is closed")
                    return
                case .cancelled:
                    TerminalIO.say("· the callback request is cancelled")
                    return
                case .requested, .confirmed, .snoozed:
                    break
                }
            case .event(let other):
                await ChatTerminal.print(other, in: conversation, files: files)
            case .line(let line):
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.isEmpty { continue }
                do {
                    if text == "/cancel" {
                        Self.say(try await client.perform(.cancel, on: id))
                        return
                    }
                    if text == "/end", chatting {
                        try await client.end(conversation)
                        TerminalIO.say("· you ended the conversation")
                        return
                    }
                    if let shown = menu, case .menu(_, let groups) = shown.content, let number = Int(text) {
                        let items = groups.flatMap(\.items)
                        guard items.indices.contains(number - 1) else {
                            TerminalIO.say("· type a number from 1 to \(items.count)")
                            continue
                        }
                        let item = items[number - 1]
                        menu = nil
                        let next = try await client.perform(item, of: shown)
                        if let note = item.confirmation { TerminalIO.say("· \(note.text)") }
                        Self.say(next)
                        if case .startChat = next.content { chatting = true }
                        continue
                    }
                    let sent = try await client.send(text, in: conversation)
                    if sent.text != text { TerminalIO.say("· sent masked: \(sent.text)") }
                } catch let error as ParleyError {
                    TerminalIO.say("· \(error.message)")
                }
            }
        }
    }

    /// A dialog as text: a menu's items numbered, a note, the number to dial, the chat's start.
    static func say(_ dialog: CallbackDialog) {
        switch dialog.content {
        case .menu(let label, let groups):
            var lines = ["? \(label)" + (dialog.expiresAt.map { " (answer \(time($0)))" } ?? "")]
            var number = 0
            for group in groups {
                lines.append("  \(group.name)")
                for item in group.items {
                    number += 1
                    lines.append("  \(number)) \(item.label)")
                }
            }
            TerminalIO.say(lines.joined(separator: "\n"))
        case .confirmation(let text, _):
            TerminalIO.say("· \(text)")
        case .dialNumber(let label, let telURL, let accessCode):
            TerminalIO.say("· \(label) call \(telURL.replacingOccurrences(of: "tel:", with: "")) and enter the access code \(accessCode)")
        case .startChat(let label, _, _):
            TerminalIO.say("· \(label): type a message and Enter; /end to end")
        }
    }

    static func describe(_ request: Callback) -> String {
        switch request.kind {
        case .callMe: "call me at \(request.phone ?? "?")"
        case .iWillCall: "I will call \(request.dialNumber ?? "?")"
        case .notifyAndChat: "notify me and chat"
        }
    }

    static func sayStatus(_ request: Callback, position: Int?) {
        switch request.status {
        case .scheduled: TerminalIO.say("· scheduled: you will be asked \(time(request.scheduledUntil))")
        case .waiting: if let position { TerminalIO.say("· waiting for an agent: position \(position) in the queue") }
        default: break
        }
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "later" }
        return "at " + date.formatted(date: .abbreviated, time: .shortened)
    }
}
