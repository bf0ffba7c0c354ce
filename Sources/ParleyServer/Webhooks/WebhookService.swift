import Foundation
import ParleyCore
import ParleyStore

/// What admins do with an app's webhook endpoints: make one (its secret shown once), list,
/// change, rotate the secret, delete, enable again, and look at and resend deliveries.
struct WebhookService: Sendable {
    let store: any ParleyStore
    let secrets: SecretBox?
    let policy: OutboundPolicy
    let configuration: WebhookConfiguration
    let bell: OutboxBell
    let apps: KnownApps
    let clock: any WallClock

    static let maxURLLength = 2_000
    static let maxDescriptionLength = 500

    func create(_ request: CreateWebhookRequest, app: AppID) async throws -> WebhookEndpointWithSecret {
        let box = try requireSecrets()
        let url = try await checkedURL(request.url)
        let now = clock.now()
        let secret = WebhookSignature.makeSecret()
        let endpoint = WebhookEndpoint(
            id: .generate(at: now), appID: app, url: url, description: try description(request.description), events: unique(request.events ?? []),
            isEnabled: true, disabledReason: nil, previousSecretExpiresAt: nil, createdAt: now, updatedAt: now)
        try await store.insertWebhookEndpoint(StoredWebhookEndpoint(endpoint: endpoint, sealedSecret: try box.seal(secret), sealedPreviousSecret: nil))
        apps.insert(app)
        return WebhookEndpointWithSecret(endpoint: endpoint, secret: secret)
    }

    func list(app: AppID) async throws -> [WebhookEndpoint] {
        try await store.webhookEndpoints(app: app).map(\.endpoint)
    }

    func endpoint(_ id: WebhookEndpointID, app: AppID) async throws -> StoredWebhookEndpoint {
        guard let stored = try await store.webhookEndpoint(id, app: app) else { throw APIError.notFound("webhook not found") }
        return stored
    }

    func update(_ id: WebhookEndpointID, _ request: UpdateWebhookRequest, app: AppID) async throws -> WebhookEndpoint {
        var stored = try await endpoint(id, app: app)
        if let url = request.url { stored.endpoint.url = try await checkedURL(url) }
        if let events = request.events { stored.endpoint.events = unique(events) }
        if let text = request.description { stored.endpoint.description = try description(text) }
        stored.endpoint.updatedAt = clock.now()
        try await store.updateWebhookEndpoint(stored)
        if let enabled = request.enabled, enabled != stored.endpoint.isEnabled {
            return try await setEnabled(id, enabled, app: app)
        }
        return try await endpoint(id, app: app).endpoint
    }

    func rotateSecret(_ id: WebhookEndpointID, app: AppID) async throws -> WebhookEndpointWithSecret {
        let box = try requireSecrets()
        var stored = try await endpoint(id, app: app)
        let now = clock.now()
        let secret = WebhookSignature.makeSecret()
        stored.sealedPreviousSecret = stored.sealedSecret
        stored.sealedSecret = try box.seal(secret)
        stored.endpoint.previousSecretExpiresAt = now.addingTimeInterval(configuration.rotationOverlap)
        stored.endpoint.updatedAt = now
        try await store.updateWebhookEndpoint(stored)
        return WebhookEndpointWithSecret(endpoint: stored.endpoint, secret: secret)
    }

    func setEnabled(_ id: WebhookEndpointID, _ enabled: Bool, app: AppID) async throws -> WebhookEndpoint {
        guard try await store.setWebhookEndpointEnabled(id, app: app, enabled: enabled, reason: enabled ? nil : "disabled by an admin", at: clock.now())
        else { throw APIError.notFound("webhook not found") }
        if enabled {
            apps.insert(app)
            bell.ring()
        }
        return try await endpoint(id, app: app).endpoint
    }

    func delete(_ id: WebhookEndpointID, app: AppID) async throws {
        guard try await store.deleteWebhookEndpoint(id, app: app, at: clock.now()) else { throw APIError.notFound("webhook not found") }
    }

    func deliveries(_ id: WebhookEndpointID, app: AppID, limit: Int) async throws -> [WebhookDelivery] {
        _ = try await endpoint(id, app: app)
        return try await store.outboxRows(kind: WebhookRule.kind, target: id.rawValue, limit: limit).map(Self.delivery)
    }

    func resend(_ delivery: String, endpoint id: WebhookEndpointID, app: AppID) async throws -> WebhookDelivery {
        _ = try await endpoint(id, app: app)
        guard try await store.resendOutbox(delivery, kind: WebhookRule.kind, target: id.rawValue, at: clock.now()),
              let record = try await store.outboxRow(delivery, kind: WebhookRule.kind, target: id.rawValue)
        else { throw APIError.notFound("delivery not found") }
        bell.ring()
        return Self.delivery(record)
    }

    static func delivery(_ record: OutboxRowRecord) -> WebhookDelivery {
        let type = (try? ParleyJSON.decode(WebhookPayload.self, from: Data(record.row.payload.utf8)))?.type.rawValue ?? "unknown"
        return WebhookDelivery(
            id: record.row.id, webhookID: record.row.messageID, endpointID: WebhookEndpointID(rawValue: record.row.target), type: type,
            conversationID: record.row.conversationID, status: WebhookDelivery.Status(rawValue: record.status) ?? .pending,
            createdAt: record.row.createdAt, nextAttemptAt: record.nextAttemptAt, request: record.row.body,
            attempts: WebhookAttempt.numbered(record.attempts),
            lastError: record.lastError)
    }

    /// The URL, checked as a delivery would check it (scheme, and every address of its host).
    private func checkedURL(_ text: String) async throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count <= Self.maxURLLength, let url = URL(string: trimmed), url.host?.isEmpty == false,
              url.user == nil, url.password == nil
        else { throw APIError.badRequest("url: give an absolute https:// URL without credentials") }
        do {
            _ = try await policy.checkedAddress(url)
        } catch let error as OutboundError {
            throw APIError.badRequest("url: \(error.description)")
        }
        return trimmed
    }

    private func description(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard text.count <= Self.maxDescriptionLength else { throw APIError.badRequest("description: at most \(Self.maxDescriptionLength) characters") }
        return text.isEmpty ? nil : text
    }

    private func unique(_ events: [WebhookEventType]) -> [WebhookEventType] {
        WebhookEventType.allCases.filter(events.contains)
    }

    private func requireSecrets() throws -> SecretBox {
        guard let secrets else {
            throw APIError.conflict("secrets_key_missing", "this server has no secrets key to seal webhook secrets with (parleyd --secrets-key-file)")
        }
        return secrets
    }
}
