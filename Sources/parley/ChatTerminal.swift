import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO

/// `parley chat` at work: a ParleyClient, its events printed, the lines typed sent. A new
/// conversation goes through ParleyKit's chat screen model, rendered as text: the pre-chat form,
/// the queue, the unavailable form when closed, the post-chat form and a rating at the end.
struct ChatTerminal {
    let command: ChatCommand

    func run() async throws {
        let serverURL = try command.server.serverURL
        var configuration = ParleyConfiguration(serverURL: serverURL, appID: command.app)
        configuration.userName = command.name
        configuration.userEmail = command.email
        configuration.identity = command.identity
        configuration.defaultQueueID = command.queue
        if let storage = command.storage { configuration.storage = .directory(URL(fileURLWithPath: storage)) }
        configuration.httpTransport = try command.server.httpTransport
        configuration.pinnedKeys = try command.server.pinnedKeys
        let client = ParleyClient(configuration: configuration, transport: try command.server.realtimeTransport)
        let events = await client.events()
        try await client.start()
        defer { Task { await client.stop() } }
        if command.callback != nil {
            // Input is read by the callback's own loop: no second reader of stdin.
            try await CallbackTerminal(command: command, client: client, serverURL: serverURL).run(events: events)
            await client.stop()
            return
        }
        let languages = [configuration.locale.identifier.replacingOccurrences(of: "_", with: "-"), "en"]
        var prompter = FormPrompter(languages: languages, lines: TerminalIO.lines().makeAsyncIterator())

        // The chat's look; the welcome message is shown, never stored.
        if let look = try? await client.appearance() {
            if let title = look.title { TerminalIO.say("· \(title)") }
            if let welcome = look.welcomeMessage(for: languages) { TerminalIO.say("· \(welcome)") }
        }

        // Continue this device's open conversation, or walk the chat screen to a new one.
        let existing = try await withServerErrors(server: serverURL) { try await client.conversations().first(where: { $0.state != .ended }) }
        var screens: ChatScreenModel?
        let conversationID: ConversationID
        if let existing {
            conversationID = existing.id
        } else {
            let model = ChatScreenModel(client: client, queue: command.queue, subject: command.subject)
            switch try await Self.start(model, prompter: &prompter) {
            case .started(let id):
                conversationID = id
                screens = model
            case .noForm:
                // Nobody to answer and no form to leave: the conversation waits in the queue.
                TerminalIO.say("· you can still write: an agent will answer when one is online")
                conversationID = try await withServerErrors(server: serverURL) {
                    try await client.openConversation(subject: command.subject).id
                }
            case .none:
                return
            }
        }
        let conversation = try await client.conversation(conversationID)
        TerminalIO.say("· conversation \(conversationID) (\(await conversation.state.rawValue)); type a message and Enter, /attach PATH [-- caption] to send a file, /save N [PATH] to keep one, /end to end")
        let files = ReceivedFiles()
        for message in await conversation.messages {
            let who = message.isMine ? "you" : (message.author.name ?? "agent")
            if let attachment = message.attachment {
                TerminalIO.say("\(who) sent a \(await files.arrived(attachment, in: conversationID))\(message.text.isEmpty ? "" : ": \(message.text)")")
            } else {
                TerminalIO.say("\(who): \(message.text)")
            }
        }

        let printer = Task {
            for await event in events { await Self.print(event, in: conversationID, files: files) }
        }
        defer { printer.cancel() }
        var pushWatcher: Task<Void, Never>?
        if let address = command.pushDemo, let url = URL(string: address) {
            let demo = PushDemo(controlURL: url)
            TerminalIO.say(try await withServerErrors(server: serverURL) { try await demo.register(client) })
            pushWatcher = Task { await demo.watch() }
        }
        defer { pushWatcher?.cancel() }
        while let line = await prompter.lines.next() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text == "/end" {
                try await withServerErrors(server: serverURL) {
                    if let screens, case .chatting = await screens.screen { await screens.endChat() } else { try await client.end(conversationID) }
                }
                TerminalIO.say("· you ended the conversation")
                break
            }
            do {
                if text.hasPrefix("/attach") {
                    guard let (path, caption) = ReceivedFiles.parseAttach(String(text.dropFirst("/attach".count))) else {
                        TerminalIO.say("· /attach takes a file's path, then optionally -- and a caption")
                        continue
                    }
                    let message = try await client.sendFile(at: URL(fileURLWithPath: path), caption: caption, in: conversationID)
                    TerminalIO.say("· sending \(message.outgoingFile?.name ?? path) (\(Attachment.readableSize(message.outgoingFile?.size ?? 0)))")
                } else if text.hasPrefix("/save") {
                    guard let (number, path) = ReceivedFiles.parseSave(String(text.dropFirst("/save".count)).trimmingCharacters(in: .whitespaces)),
                          let file = await files.file(number) else {
                        TerminalIO.say("· /save takes the number of a file shown, then optionally a path")
                        continue
                    }
                    let destination = ReceivedFiles.destination(for: file.attachment, path: path)
                    for try await _ in await client.download(file.attachment, in: file.conversation, to: destination) {}
                    TerminalIO.say("· saved \(destination.path)")
                } else {
                    let sent = try await client.send(text, in: conversationID)
                    // The app's masking rules hid something: say what was sent instead.
                    if sent.text != text { TerminalIO.say("· sent masked: \(sent.text)") }
                }
            } catch let error as ParleyError {
                TerminalIO.say("· \(text.hasPrefix("/save") ? "not saved" : "not sent"): \(error.message)")
            }
        }
        // Let the outbox deliver what was typed last before leaving (bounded).
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, await conversation.messages.contains(where: { $0.deliveryState == .pending }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        if let screens { await Self.finish(screens, client: client, conversation: conversationID, prompter: &prompter) }
        await client.stop()
    }

    /// How walking the screens to a conversation ended.
    enum Start {
        case started(ConversationID)
        /// Closed or nobody online, and the app has no unavailable form.
        case noForm
    }

    /// Walks the screens until a conversation waits or runs; nil when none starts (sent offline,
    /// or input ended).
    static func start(_ model: ChatScreenModel, prompter: inout FormPrompter) async throws -> Start? {
        await model.start()
        var answers = FormAnswers()
        while true {
            switch await model.screen {
            case .loading:
                try await Task.sleep(for: .milliseconds(50))
            case .preChat(let form):
                guard let typed = await prompter.ask(form.form, errors: form.errors, previous: answers) else { return nil }
                answers = typed
                await model.submitPreChat(typed)
            case .unavailable(let reason, let form):
                switch reason {
                case .closed(let next?): TerminalIO.say("· we are closed; we open again \(next.formatted(date: .abbreviated, time: .shortened))")
                case .closed(nil): TerminalIO.say("· we are closed")
                case .noAgentOnline, .cancelled: TerminalIO.say("· nobody can answer right now")
                }
                guard let form else { return .noForm }
                TerminalIO.say("· leave a message and we will answer it here later:")
                guard let typed = await prompter.ask(form.form, errors: form.errors, previous: answers) else { return nil }
                answers = typed
                await model.submitOfflineForm(typed)
            case .offlineSubmitted:
                TerminalIO.say("· your message is sent; an agent will answer it in this conversation")
                return nil
            case .queued, .chatting, .postChat, .ended:
                return await model.conversationID.map(Start.started)
            case .error(let error):
                TerminalIO.say("· cannot start the chat: \(error.message)")
                throw error
            }
        }
    }

    /// After the end: the post-chat form, then a rating, when the app asks for them.
    static func finish(_ model: ChatScreenModel, client: ParleyClient, conversation: ConversationID, prompter: inout FormPrompter) async {
        let deadline = ContinuousClock.now + .seconds(5)
        var answers = FormAnswers()
        while ContinuousClock.now < deadline {
            switch await model.screen {
            case .postChat(let form) where !form.isSubmitting:
                guard let typed = await prompter.ask(form.form, errors: form.errors, previous: answers) else { return }
                answers = typed
                await model.submitPostChat(typed)
                guard case .ended = await model.screen else { continue }
                TerminalIO.say("? Rate this conversation [1–5] (Enter to skip)")
                if let line = await prompter.lines.next(), let score = Int(line.trimmingCharacters(in: .whitespaces)), (1...5).contains(score) {
                    _ = try? await client.rate(conversation, score: score)
                }
                TerminalIO.say("· thanks for your answers")
                return
            case .ended, .error, .offlineSubmitted:
                return
            default:
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    static func print(_ event: ParleyEvent, in conversation: ConversationID, files: ReceivedFiles) async {
        switch event {
        case .queuePosition(let position, conversation):
            TerminalIO.say("· waiting for an agent: position \(position) in the queue")
        case .event(let event) where event.conversationID == conversation:
            switch event.body {
            case .message(let message) where event.author.role != .visitor:
                if let attachment = message.attachment {
                    let line = await files.arrived(attachment, in: event.conversationID)
                    TerminalIO.say("\(event.author.name ?? "agent") sent a \(line)\(message.text.isEmpty ? "" : ": \(message.text)")")
                } else {
                    TerminalIO.say("\(event.author.name ?? "agent"): \(message.text)")
                }
            case .pagePushed(let page):
                TerminalIO.say("\(event.author.name ?? "agent") shared a page: \(page.title) <\(page.url)>")
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
