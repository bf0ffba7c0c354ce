import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

extension ParleyServer {
    func addConversationRoutes(to router: Router<ParleyRequestContext>) {
        let conversations = router.group("v1/conversations")

        conversations.post { request, context in
            guard case .visitor(let visitor) = try await self.authenticator.caller(of: request) else {
                throw APIError.forbidden("only visitors open conversations")
            }
            let body = try await request.decodeJSON(OpenConversationRequest.self, context: context)
            return JSONResponse(try await self.conversations.open(body, by: visitor), status: .created)
        }

        conversations.get { request, _ in
            let caller = try await self.authenticator.caller(of: request)
            let viewText = request.uri.queryParameters.get("view")
            let view = try viewText.map { text in
                guard let view = ConversationService.AgentView(rawValue: text) else { throw APIError.badRequest("view: queued, mine or all") }
                return view
            }
            let limit = try Self.integer(request, "limit", default: 100, range: 1...500)
            return JSONResponse(ConversationList(conversations: try await self.conversations.list(for: caller, view: view, limit: limit)))
        }

        conversations.get(":id") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            return JSONResponse(try await self.conversations.visible(try Self.conversationID(context), to: caller))
        }

        // History by seq. `after=N` (oldest first), or `before=N` (the newest page before N).
        // `wait=S` (≤ 30) long-polls an empty "after" page for up to S seconds.
        conversations.get(":id/events") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            let id = try Self.conversationID(context)
            let after = try Self.optionalInteger(request, "after", range: 0...Int64.max)
            let before = try Self.optionalInteger(request, "before", range: 1...Int64.max)
            if after != nil && before != nil { throw APIError.badRequest("give after or before, not both") }
            let limit = try Self.integer(request, "limit", default: 100, range: 1...Limits.maxEventPage)
            let wait = try Self.integer(request, "wait", default: 0, range: 0...Limits.maxLongPollSeconds)
            return JSONResponse(try await self.conversations.history(
                id, caller: caller, afterSeq: after, beforeSeq: before, limit: limit, wait: wait > 0 ? .seconds(wait) : nil))
        }

        conversations.post(":id/messages") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            let id = try Self.conversationID(context)
            let body = try await request.decodeJSON(SendMessageRequest.self, context: context)
            let commit = try await self.conversations.send(id, clientMessageID: body.clientMessageID, text: body.text, by: caller)
            guard let event = commit.events.last else { throw APIError.conflict("invalid_state", "nothing stored") }
            return JSONResponse(SendMessageResponse(duplicate: commit.isDuplicate, event: event), status: commit.isDuplicate ? .ok : .created)
        }

        conversations.post(":id/end") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            return JSONResponse(try await self.conversations.end(try Self.conversationID(context), by: caller))
        }

        conversations.post(":id/read") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            let body = try await request.decodeJSON(ReadRequest.self, context: context)
            _ = try await self.conversations.markRead(try Self.conversationID(context), seq: body.seq, by: caller)
            return Response(status: .noContent)
        }

        conversations.post(":id/typing") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            let body = try await request.decodeJSON(TypingRequest.self, context: context)
            try await self.conversations.typing(try Self.conversationID(context), isTyping: body.isTyping, by: caller)
            return Response(status: .noContent)
        }

        conversations.post(":id/accept") { request, context in
            let agent = try await self.agentCaller(request)
            return JSONResponse(try await self.conversations.accept(try Self.conversationID(context), by: agent))
        }
    }

    /// The `:id` parameter; a malformed id is "not found" like any id the caller may not see.
    /// Transfers and internal notes: agent-only routes on a conversation.
    func addConversationDeskRoutes(to router: Router<ParleyRequestContext>) {
        let conversations = router.group("v1/conversations")

        conversations.post(":id/transfer") { request, context in
            let agent = try await self.conversationAgent(request)
            let body = try await request.decodeJSON(TransferRequest.self, context: context)
            return JSONResponse(try await self.conversations.transfer(try Self.conversationID(context), body, by: agent))
        }

        conversations.get(":id/notes") { request, context in
            let agent = try await self.conversationAgent(request)
            let after = try Self.optionalInteger(request, "after", range: 0...Int64.max) ?? 0
            let limit = try Self.integer(request, "limit", default: 100, range: 1...Limits.maxEventPage)
            return JSONResponse(NoteList(notes: try await self.conversations.notes(try Self.conversationID(context), by: agent, afterSeq: after, limit: limit)))
        }

        conversations.post(":id/notes") { request, context in
            let agent = try await self.conversationAgent(request)
            let body = try await request.decodeJSON(AddNoteRequest.self, context: context)
            let commit = try await self.conversations.addNote(try Self.conversationID(context), body, by: agent)
            return JSONResponse(commit.note, status: commit.isDuplicate ? .ok : .created)
        }
    }

    /// An agent of the conversation's app. Anyone else is told the conversation does not exist, so a
    /// visitor cannot even learn that notes or transfers are there.
    private func conversationAgent(_ request: Request) async throws -> AgentCaller {
        guard case .agent(let agent) = try await authenticator.caller(of: request) else { throw APIError.notFound("conversation not found") }
        return agent
    }

    static func conversationID(_ context: ParleyRequestContext) throws -> ConversationID {
        guard let text = context.parameters.get("id"), let id = ConversationID(validating: text) else {
            throw APIError.notFound("conversation not found")
        }
        return id
    }

    static func optionalInteger(_ request: Request, _ name: String, range: ClosedRange<Int64>) throws -> Int64? {
        guard let text = request.uri.queryParameters.get(name) else { return nil }
        guard let value = Int64(text), range.contains(value) else { throw APIError.badRequest("\(name): an integer in \(range)") }
        return value
    }

    static func integer(_ request: Request, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = request.uri.queryParameters.get(name) else { return value }
        guard let parsed = Int(text), range.contains(parsed) else { throw APIError.badRequest("\(name): an integer in \(range)") }
        return parsed
    }
}
