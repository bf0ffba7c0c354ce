import Foundation
import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// Delivers the webhook rows of the outbox (decision 0016): claims due rows with a lease (several
/// nodes share them), signs each per Standard Webhooks, POSTs it to the endpoint's checked address,
/// records the attempt, and schedules the next by ``DeliveryBackoff``; a row that fails for the
/// whole retry time is given up and its endpoint disabled with the reason.
///
/// At least once: a node killed between the receiver's answer and the record tries the row again
/// after the lease, with the same `webhook-id` and body. Never twice at once: the lease outlasts
/// an attempt (two timeouts), and a row's later siblings (same conversation, same endpoint) wait
/// until it is done.
struct WebhookDeliverer: Service {
    let store: any ParleyStore
    let outbound: OutboundClient
    let secrets: SecretBox?
    let configuration: WebhookConfiguration
    let bell: OutboxBell
    let apps: KnownApps
    let clock: any WallClock
    let logger: Logger

    /// Held long enough for one attempt, so no other worker takes it meanwhile.
    var lease: TimeInterval { outbound.policy.timeout * 2 + 10 }

    func run() async throws {
        var worker = OutboxWorker(
            kind: WebhookRule.kind, store: store, bell: bell, clock: clock, pollInterval: configuration.pollInterval,
            concurrency: configuration.concurrency, lease: lease, logger: logger, deliver: deliver)
        // Another node's new endpoint: this node's commits add its rows from now on.
        worker.onPoll = { [store, apps] in if let fresh = try? await store.webhookApps() { apps.add(fresh) } }
        await worker.run()
    }

    /// One attempt at one row, recorded.
    func deliver(_ row: ClaimedOutboxRow) async {
        let started = clock.now()
        let startedMonotonic = ContinuousClock.now
        var body = row.body
        var status: Int?
        var response: String?
        var failure: String?
        var endpointGone = false
        do {
            guard let id = WebhookEndpointID(validating: row.target),
                  let stored = try await store.webhookEndpoint(id, app: row.appID)
            else {
                endpointGone = true
                throw WebhookDeliveryError("endpoint deleted")
            }
            guard stored.endpoint.isEnabled else { return }  // disabled meanwhile: held, the lease runs out
            if body == nil { body = try await render(row) }
            let bytes = Data((body ?? "{}").utf8)
            guard let secrets else { throw WebhookDeliveryError("no secrets key: the signing secret cannot be opened") }
            var keys = [try secrets.open(stored.sealedSecret)]
            if let previous = stored.sealedPreviousSecret, let until = stored.endpoint.previousSecretExpiresAt, until > started {
                keys.append(try secrets.open(previous))
            }
            let timestamp = Int64(started.timeIntervalSince1970)
            let headers = try WebhookSignature.headers(id: row.messageID, timestamp: timestamp, body: bytes, secrets: keys)
            guard let url = URL(string: stored.endpoint.url) else { throw WebhookDeliveryError("the endpoint's URL is not valid") }
            let answer = try await outbound.post(url, body: bytes, headers: headers)
            status = answer.status
            response = String(decoding: answer.body.prefix(1_000), as: UTF8.self)
        } catch {
            failure = String("\(error)".prefix(500))
        }
        let attempt = OutboxAttemptRecord(at: started, status: status, response: response, error: failure, duration: secondsSince(startedMonotonic))
        let delivered = failure == nil && status.map { (200..<300).contains($0) } == true
        let outcome: OutboxOutcome
        if delivered {
            outcome = .delivered
        } else if endpointGone {
            outcome = .failed(disablingTarget: nil)
        } else if let next = configuration.backoff.nextAttempt(after: row.attempts + 1, at: clock.now(), created: row.createdAt, u: configuration.random()) {
            outcome = .retry(at: next)
        } else {
            let hours = Int((configuration.backoff.retryDuration / 3600).rounded())
            let last = OutboxAttemptRecord.summary(attempt) ?? "no answer"
            outcome = .failed(disablingTarget: "deliveries kept failing for \(hours) h (last: \(last)); enable the endpoint to try again")
        }
        do {
            try await store.recordOutboxAttempt(row.id, attempt, body: body, outcome: outcome)
        } catch {
            logger.warning("webhook attempt not recorded", metadata: ["parley.webhook": "\(row.id)", "error": "\(error)"])
        }
        if !delivered {
            logger.debug("webhook attempt failed", metadata: ["parley.webhook": "\(row.id)", "attempt": "\(row.attempts + 1)"])
        }
    }

    /// The request body: the stored payload with the visitor's name and user id, read now.
    func render(_ row: ClaimedOutboxRow) async throws -> String {
        var payload = try ParleyJSON.decode(WebhookPayload.self, from: Data(row.payload.utf8))
        if let visitor = try await store.visitor(payload.data.visitor.id, app: row.appID) {
            payload.data.visitor.name = visitor.name
            payload.data.visitor.userID = visitor.userID
        }
        return String(decoding: try ParleyJSON.encode(payload), as: UTF8.self)
    }
}

/// Why a webhook attempt failed before a request was made.
struct WebhookDeliveryError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
