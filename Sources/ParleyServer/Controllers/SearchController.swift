import Hummingbird
import ParleyCore

/// `GET /v1/desk/search`: agents and admins of the app search its conversations.
struct SearchController {
    let search: SearchService

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.desk.search) { request, context in
            let agent = try context.requireAgent()
            return JSONResponse(try await search.search(try SearchRequest(request), by: agent))
        }
    }
}
