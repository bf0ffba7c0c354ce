import Hummingbird

/// Resolves the caller of a request once, before its route runs, into
/// ``ParleyRequestContext/authentication``: a visitor token, an agent session (bearer or the desk's
/// cookie, with its CSRF and origin checks) or the operator token, as ``Authenticator`` reads them.
struct CallerMiddleware: RouterMiddleware {
    typealias Context = ParleyRequestContext

    let authenticator: Authenticator
    /// The routes behind this middleware open WebSockets, where a session cookie must name its origin.
    var isUpgrade = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do {
            context.authentication = .success(try await authenticator.caller(of: request, isUpgrade: isUpgrade))
        } catch {
            context.authentication = .failure(error)
        }
        return try await next(request, context)
    }
}
