import Hummingbird
import ParleyCore

/// What a visitor answers after a conversation, and what agents read of it: the rating
/// (`PUT` by the visitor after the end, `GET` by the visitor and agents) and the forms.
extension ConversationController {
    func addAnswerRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.conversations.rate) { request, context in
            let visitor = try context.requireVisitor(else: .forbidden("only the conversation's visitor rates it"))
            let body = try await request.decodeJSON(RatingRequest.self, context: context)
            return JSONResponse(try await conversations.rate(try context.conversationID(), body, by: visitor))
        }

        router.on(.conversations.rating) { request, context -> Response in
            let caller = try context.requireCaller()
            // Not rated (yet) is a normal state, not a missing resource: 204, no body.
            guard let rating = try await conversations.rating(try context.conversationID(), caller: caller) else { return Response(status: .noContent) }
            return try JSONResponse(rating).response(from: request, context: context)
        }

        router.on(.conversations.submitPostChat) { request, context in
            let visitor = try context.requireVisitor(else: .forbidden("only the conversation's visitor answers its post-chat form"))
            let body = try await request.decodeJSON(SubmitFormRequest.self, context: context)
            return JSONResponse(try await conversations.submitPostChat(try context.conversationID(), body, by: visitor))
        }

        router.on(.conversations.forms) { _, context in
            let caller = try context.requireCaller()
            return JSONResponse(FormSubmissionList(submissions: try await conversations.formSubmissions(try context.conversationID(), caller: caller)))
        }
    }
}
