import Hummingbird
import ParleyCore

/// `GET /health`: open to everyone, for load balancers and `parley` to check a server is up.
struct HealthController {
    let version: String

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.server.health) { _, _ in
            JSONResponse(Health(status: "ok", version: version))
        }
    }
}
