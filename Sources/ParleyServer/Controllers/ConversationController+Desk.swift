import Hummingbird
import ParleyCore
import ParleyStore

/// Transfers and internal notes: agent-only routes on a conversation.
extension ConversationController {
    func addDeskRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.conversations.transfer) { request, context in
            let agent = try Self.conversationAgent(context)
            let body = try await request.decodeJSON(TransferRequest.self, context: context)
            return JSONResponse(try await conversations.transfer(try context.conversationID(), body, by: agent))
        }

        router.on(.conversations.notes) { request, context in
            let agent = try Self.conversationAgent(context)
            let after = try request.optionalInteger("after", range: 0...Int64.max) ?? 0
            let limit = try request.integer("limit", default: 100, range: 1...Limits.maxEventPage)
            return JSONResponse(NoteList(notes: try await conversations.notes(try context.conversationID(), by: agent, afterSeq: after, limit: limit)))
        }

        router.on(.conversations.addNote) { request, context in
            let agent = try Self.conversationAgent(context)
            let body = try await request.decodeJSON(AddNoteRequest.self, context: context)
            let commit = try await conversations.addNote(try context.conversationID(), body, by: agent)
            return JSONResponse(commit.note, status: commit.isDuplicate ? .ok : .created)
        }
    }

    func addTriageRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.conversations.triage) { _, context in
            let agent = try Self.conversationAgent(context)
            let id = try context.conversationID()
            guard try await inbox.store.conversation(id, app: agent.appID) != nil else { throw APIError.notFound("conversation not found") }
            return JSONResponse(try await inbox.triage(of: [id], app: agent.appID)[0])
        }

        router.on(.conversations.setTriage) { request, context in
            let agent = try Self.conversationAgent(context)
            let body = try await request.decodeJSON(TriageUpdate.self, context: context)
            return JSONResponse(try await inbox.updateTriage(try context.conversationID(), body, by: agent))
        }

        router.on(.desk.counts) { _, context in
            JSONResponse(try await inbox.counts(for: try context.requireAgent()))
        }

        router.on(.team.tags) { _, context in
            JSONResponse(try await inbox.settings.tags(app: try context.requireAgent().appID))
        }
    }

    /// An agent of the conversation's app. Anyone else is told the conversation does not exist, so a
    /// visitor cannot even learn that notes or transfers are there.
    private static func conversationAgent(_ context: ParleyRequestContext) throws -> AgentCaller {
        try context.requireAgent(else: .notFound("conversation not found"))
    }
}
