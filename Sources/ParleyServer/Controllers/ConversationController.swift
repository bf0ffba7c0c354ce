import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// A conversation, its history and what its visitor and agents do in it. Transfers and internal
/// notes are in `ConversationController+Desk.swift`, ratings and forms in `+Answers.swift`.
struct ConversationController {
    let conversations: ConversationService
    let inbox: InboxService

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.conversations.open) { request, context in
            let visitor = try context.requireVisitor(else: .forbidden("only visitors open conversations"))
            let body = try await request.decodeJSON(OpenConversationRequest.self, context: context)
            return JSONResponse(try await conversations.open(body, by: visitor), status: .created)
        }

        router.on(.conversations.list) { request, context in
            let caller = try context.requireCaller()
            // Agents list an inbox view; a visitor lists their own (the view is checked, not used).
            let inboxRequest = try InboxRequest(request)
            switch caller {
            case .agent(let agent):
                return JSONResponse(try await inbox.list(inboxRequest, by: agent))
            case .visitor(let visitor):
                return JSONResponse(ConversationList(conversations: try await conversations.list(for: visitor, limit: inboxRequest.limit)))
            case .operator:
                throw APIError.notFound()
            }
        }

        router.on(.conversations.get) { _, context in
            let caller = try context.requireCaller()
            return JSONResponse(try await conversations.visible(try context.conversationID(), to: caller))
        }

        // History by seq. `after=N` (oldest first), or `before=N` (the newest page before N).
        // `wait=S` (≤ 30) long-polls an empty "after" page for up to S seconds.
        router.on(.conversations.events) { request, context in
            let caller = try context.requireCaller()
            let id = try context.conversationID()
            let after = try request.optionalInteger("after", range: 0...Int64.max)
            let before = try request.optionalInteger("before", range: 1...Int64.max)
            if after != nil && before != nil { throw APIError.badRequest("give after or before, not both") }
            let limit = try request.integer("limit", default: 100, range: 1...Limits.maxEventPage)
            let wait = try request.integer("wait", default: 0, range: 0...Limits.maxLongPollSeconds)
            return JSONResponse(try await conversations.history(
                id, caller: caller, afterSeq: after, beforeSeq: before, limit: limit, wait: wait > 0 ? .seconds(wait) : nil))
        }

        router.on(.conversations.send) { request, context in
            let caller = try context.requireCaller()
            let id = try context.conversationID()
            let body = try await request.decodeJSON(SendMessageRequest.self, context: context)
            let commit = try await conversations.send(id, clientMessageID: body.clientMessageID, text: body.text, by: caller)
            guard let event = commit.events.last else { throw APIError.conflict("invalid_state", "nothing stored") }
            return JSONResponse(SendMessageResponse(duplicate: commit.isDuplicate, event: event), status: commit.isDuplicate ? .ok : .created)
        }

        router.on(.conversations.pushPage) { request, context in
            let agent = try context.requireAgent()
            let body = try await request.decodeJSON(PushPageRequest.self, context: context)
            let commit = try await conversations.pushPage(try context.conversationID(), body, by: agent)
            guard let event = commit.events.last else { throw APIError.conflict("invalid_state", "nothing stored") }
            return JSONResponse(SendMessageResponse(duplicate: commit.isDuplicate, event: event), status: commit.isDuplicate ? .ok : .created)
        }

        router.on(.conversations.end) { _, context in
            let caller = try context.requireCaller()
            return JSONResponse(try await conversations.end(try context.conversationID(), by: caller))
        }

        router.on(.conversations.read) { request, context in
            let caller = try context.requireCaller()
            let body = try await request.decodeJSON(ReadRequest.self, context: context)
            _ = try await conversations.markRead(try context.conversationID(), seq: body.seq, by: caller)
            return Response(status: .noContent)
        }

        router.on(.conversations.typing) { request, context in
            let caller = try context.requireCaller()
            let body = try await request.decodeJSON(TypingRequest.self, context: context)
            try await conversations.typing(try context.conversationID(), isTyping: body.isTyping, by: caller)
            return Response(status: .noContent)
        }

        router.on(.conversations.accept) { _, context in
            let agent = try context.requireAgent()
            return JSONResponse(try await conversations.accept(try context.conversationID(), by: agent))
        }

        addDeskRoutes(to: router)
        addTriageRoutes(to: router)
        addAnswerRoutes(to: router)
    }
}
