import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO

/// `parley agent` at work: an AgentClient, routed conversations printed, typed lines answered.
///
/// Plain lines go to the current conversation (the one last assigned, or picked with /switch).
/// Commands: /list, /switch N, /accept ID, /attach PATH [-- caption], /save N [PATH], /outcome OUTCOME [MINUTES], /end,
/// /online, /away, /quit. A callback request shows what to do once its visitor confirms (the number
/// to call, the code the caller gives); `/outcome` records how it went.
struct AgentTerminal {
    let command: AgentCommand

    func run() async throws {
        let serverURL = try command.server.serverURL
        let client = AgentClient(
            serverURL: serverURL, transport: try command.server.realtimeTransport,
            httpTransport: try command.server.httpTransport, pinnedKeys: try command.server.pinnedKeys)
        let events = await client.events()
        let agent = try await withServerErrors(server: serverURL) {
            try await client.login(email: command.resolvedEmail ?? "", password: command.resolvedPassword ?? "")
        }
        try await withServerErrors(server: serverURL) { _ = try await client.setAvailability(command.availability) }
        TerminalIO.say("· signed in as \(agent.name) (\(command.availability.rawValue)); /help lists the commands")

        let desk = Desk()
        for conversation in (try? await client.conversations("mine")) ?? [] { await desk.assigned(conversation) }
        let printer = Task {
            for await event in events { await desk.show(event, me: agent.id) }
        }
        defer { printer.cancel() }

        for await line in TerminalIO.lines() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            do {
                if try await handleCommand(text, client: client, desk: desk) == false { break }
            } catch let error as ParleyError {
                TerminalIO.say("· \(error.message)")
            }
        }
        _ = try? await client.setAvailability(.offline)
        await client.logout()
    }

    /// Runs a typed line; returns false to quit.
    private func handleCommand(_ text: String, client: AgentClient, desk: Desk) async throws -> Bool {
        let words = text.split(separator: " ", maxSplits: 1).map(String.init)
        switch words[0] {
        case "/quit": return false
        case "/help":
            TerminalIO.say("· /list, /switch N, /accept cnv_…, /note TEXT, /transfer agt_…|que_…, /push URL [TITLE], /attach PATH [-- caption], /save N [PATH], /outcome connected|no_answer|wrong_number|done [RETRY_MINUTES], /end, /online, /away, /quit; anything else is sent")
        case "/list":
            for (index, conversation) in await desk.conversations.enumerated() {
                TerminalIO.say("  \(index + 1). \(conversation.id) \(conversation.subject ?? "")")
            }
        case "/switch":
            guard words.count == 2, let number = Int(words[1]), await desk.select(number - 1) else {
                TerminalIO.say("· /switch takes a number from /list")
                return true
            }
            TerminalIO.say("· now in \(await desk.current?.id.rawValue ?? "-")")
        case "/accept":
            guard words.count == 2, let id = ConversationID(validating: words[1]) else {
                TerminalIO.say("· /accept takes a conversation id")
                return true
            }
            await desk.assigned(try await client.accept(id))
        case "/end":
            guard let current = await desk.current else { return noConversation() }
            try await client.end(current.id)
            await desk.ended(current.id)
            TerminalIO.say("· ended \(current.id)")
        case "/note":
            guard let current = await desk.current else { return noConversation() }
            guard words.count == 2 else {
                TerminalIO.say("· /note takes a text, which only agents see")
                return true
            }
            try await client.addNote(words[1], in: current.id)
            TerminalIO.say("· note added (agents only)")
        case "/transfer":
            guard let current = await desk.current else { return noConversation() }
            let target = words.count == 2 ? words[1].trimmingCharacters(in: .whitespaces) : ""
            if let agent = AgentID(validating: target) {
                try await client.transfer(current.id, toAgent: agent)
            } else if let queue = QueueID(validating: target) {
                try await client.transfer(current.id, toQueue: queue)
            } else {
                TerminalIO.say("· /transfer takes an agent id (agt_…) or a queue id (que_…)")
                return true
            }
            await desk.ended(current.id)
            TerminalIO.say("· transferred \(current.id) to \(target)")
        case "/push":
            guard let current = await desk.current else { return noConversation() }
            let parts = words.count == 2 ? words[1].split(separator: " ", maxSplits: 1).map(String.init) : []
            guard let url = parts.first else {
                TerminalIO.say("· /push takes a page's URL, then optionally its title")
                return true
            }
            let title = parts.count == 2 ? parts[1] : (URLComponents(string: url)?.host ?? url)
            try await client.pushPage(url, title: title, in: current.id)
            TerminalIO.say("· pushed \(title) <\(url)>")
        case "/attach":
            guard let current = await desk.current else { return noConversation() }
            guard words.count == 2, let (path, caption) = ReceivedFiles.parseAttach(words[1]) else {
                TerminalIO.say("· /attach takes a file's path, then optionally -- and a caption")
                return true
            }
            let event = try await client.sendFile(at: URL(fileURLWithPath: path), caption: caption, in: current.id)
            TerminalIO.say("· sent \(event.message?.attachment?.name ?? path)")
        case "/save":
            guard words.count == 2, let (number, path) = ReceivedFiles.parseSave(words[1]), let file = await desk.files.file(number) else {
                TerminalIO.say("· /save takes the number of a file shown, then optionally a path")
                return true
            }
            let destination = ReceivedFiles.destination(for: file.attachment, path: path)
            try await client.download(file.attachment, in: file.conversation, to: destination)
            TerminalIO.say("· saved \(destination.path)")
        case "/outcome":
            guard let current = await desk.current else { return noConversation() }
            let parts = words.count == 2 ? words[1].split(separator: " ").map(String.init) : []
            guard let outcome = parts.first.flatMap(CallbackOutcome.init(rawValue:)), parts.count <= 2,
                  parts.count == 1 || Int(parts[1]).map({ (1...43_200).contains($0) }) == true else {
                TerminalIO.say("· /outcome takes connected, no_answer, wrong_number or done, then optionally minutes until another try")
                return true
            }
            let retryAt = parts.count == 2 ? Date().addingTimeInterval(TimeInterval(Int(parts[1])! * 60)) : nil
            let conversation = try await client.recordCallbackOutcome(outcome, retryAt: retryAt, in: current.id)
            await desk.ended(current.id)
            if conversation.callback?.status == .scheduled {
                TerminalIO.say("· \(outcome.rawValue.replacingOccurrences(of: "_", with: " ")): another try \(CallbackTerminal.time(conversation.callback?.scheduledUntil))")
            } else {
                TerminalIO.say("· callback done: \(outcome.rawValue.replacingOccurrences(of: "_", with: " "))")
            }
        case "/online", "/away":
            try await client.setAvailability(words[0] == "/online" ? .online : .away)
            TerminalIO.say("· you are \(words[0].dropFirst())")
        default:
            guard let current = await desk.current else { return noConversation() }
            try await client.reply(text, in: current.id)
        }
        return true
    }

    private func noConversation() -> Bool {
        TerminalIO.say("· no conversation yet: wait for one to be routed to you, or /accept one")
        return true
    }
}

/// The agent's conversations in the terminal, and which one typed lines go to.
actor Desk {
    private(set) var conversations: [Conversation] = []
    /// The files visitors sent, for `/save`.
    let files = ReceivedFiles()
    private var selected: Int?

    var current: Conversation? { selected.flatMap { conversations.indices.contains($0) ? conversations[$0] : nil } }

    func assigned(_ conversation: Conversation) {
        if let index = conversations.firstIndex(where: { $0.id == conversation.id }) {
            conversations[index] = conversation
        } else {
            conversations.append(conversation)
            if let request = conversation.callback {
                TerminalIO.say("· callback request \(conversations.count): \(conversation.id) — \(CallbackTerminal.describe(request))"
                    + (request.status == .offered ? "; waiting for the visitor to confirm" : ""))
            } else {
                TerminalIO.say("· new conversation \(conversations.count): \(conversation.id)\(conversation.subject.map { " — \($0)" } ?? "")")
            }
        }
        selected = conversations.count - 1
    }

    func ended(_ id: ConversationID) {
        conversations.removeAll { $0.id == id }
        selected = conversations.isEmpty ? nil : conversations.count - 1
    }

    func select(_ index: Int) -> Bool {
        guard conversations.indices.contains(index) else { return false }
        selected = index
        return true
    }

    func show(_ event: AgentClient.Event, me: AgentID) async {
        switch event {
        case .conversation(let conversation):
            if let request = conversation.callback, conversation.state == .queued, conversations.contains(where: { $0.id == conversation.id }) {
                // Snoozed, unanswered or rescheduled: back in its queue, no longer this agent's.
                ended(conversation.id)
                TerminalIO.say("· callback request \(conversation.id) went back to the queue (\(request.status.rawValue))")
                return
            }
            if conversation.state == .assigned, conversation.agentID == me { assigned(conversation) }
            if conversation.state != .ended, conversation.agentID != me, conversations.contains(where: { $0.id == conversation.id }) {
                ended(conversation.id)
                TerminalIO.say("· \(conversation.id) was transferred")
            }
            if conversation.state == .ended, conversations.contains(where: { $0.id == conversation.id }) {
                ended(conversation.id)
                TerminalIO.say("· \(conversation.id) ended")
            }
        case .event(let event):
            let number = (conversations.firstIndex { $0.id == event.conversationID } ?? -1) + 1
            if case .callback(let change) = event.body, change.action == .confirmed, number > 0 {
                let request = change.callback
                switch request.kind {
                case .callMe: TerminalIO.say("[\(number)] confirmed: call \(request.phone ?? "?") now, then /outcome")
                case .iWillCall: TerminalIO.say("[\(number)] confirmed: the visitor calls \(request.dialNumber ?? "?") with access code \(request.accessCode ?? "?"); then /outcome")
                case .notifyAndChat: TerminalIO.say("[\(number)] confirmed: the visitor is ready to chat")
                }
                return
            }
            guard case .message(let message) = event.body, event.author.role == .visitor else { return }
            if let attachment = message.attachment {
                let line = await files.arrived(attachment, in: event.conversationID)
                TerminalIO.say("[\(number)] \(event.author.name ?? "visitor") sent a \(line)\(message.text.isEmpty ? "" : ": \(message.text)")")
            } else {
                TerminalIO.say("[\(number)] \(event.author.name ?? "visitor"): \(message.text)")
            }
        case .note(let note):
            guard note.author.id != me.rawValue else { return }
            let number = (conversations.firstIndex { $0.id == note.conversationID } ?? -1) + 1
            TerminalIO.say("[\(number)] note from \(note.author.name ?? "an agent"): \(note.text)")
        case .typing(let who, true, let conversation):
            let number = (conversations.firstIndex { $0.id == conversation } ?? -1) + 1
            TerminalIO.say("[\(number)] \(who.name ?? "visitor") is typing…")
        case .connection(.waitingToReconnect):
            TerminalIO.say("· connection lost; reconnecting")
        case .connection(.failed(let error)):
            TerminalIO.say("· cannot connect: \(error.message)")
        default:
            break
        }
    }
}
