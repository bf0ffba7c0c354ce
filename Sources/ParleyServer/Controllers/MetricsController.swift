import CoreMetrics
import Hummingbird
import NIOCore
import ParleyCore
import ParleyStore
import Prometheus

/// `GET /metrics`: every figure of ``ServerMetrics`` in the Prometheus text format, for the
/// operator token only (it tells load and traffic, not content). Gauges that are cheap to read
/// when asked (routing's queues, the outbox depths) are sampled at each scrape.
struct MetricsController {
    let metrics: ServerMetrics
    let routing: RoutingEngine
    let store: any ParleyStore

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.server.metrics) { _, context -> Response in
            try context.requireOperator(else: .forbidden("metrics need the operator token"))
            let (waiting, agents) = await routing.summary()
            metrics.conversationsWaiting.set(waiting)
            metrics.agentsConnected.set(agents)
            for (kind, depth) in try await store.outboxDepths() {
                metrics.registry.makeGauge(name: ServerMetrics.Name.outboxPending, labels: [("kind", kind)]).set(Double(depth))
            }
            var body: [UInt8] = []
            metrics.registry.emit(into: &body)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
