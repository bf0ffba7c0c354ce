import Hummingbird
import ParleyCore

extension ParleyServer {
    func addHealthRoutes(to router: Router<ParleyRequestContext>) {
        router.get("health") { _, _ in
            JSONResponse(Health(status: "ok", version: self.configuration.version))
        }
    }
}
