import Hummingbird
import ParleyCore

extension ParleyServer {
    /// `PUT /v1/conversations/:id/rating` (the visitor, after the end) and `GET` (visitor, agents).
    func addRatingRoutes(to router: Router<ParleyRequestContext>) {
        router.put("v1/conversations/:id/rating") { request, context in
            guard case .visitor(let visitor) = try await self.authenticator.caller(of: request) else {
                throw APIError.forbidden("only the conversation's visitor rates it")
            }
            let body = try await request.decodeJSON(RatingRequest.self, context: context)
            return JSONResponse(try await self.conversations.rate(try Self.conversationID(context), body, by: visitor))
        }

        router.get("v1/conversations/:id/rating") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            return JSONResponse(try await self.conversations.rating(try Self.conversationID(context), caller: caller))
        }
    }
}
