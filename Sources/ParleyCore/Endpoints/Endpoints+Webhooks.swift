import Foundation

extension Endpoint {
    /// `/v1/admin/apps/:app/webhooks…`: an app's webhook endpoints and their deliveries (admins).
    public static var webhooks: WebhookEndpoints { WebhookEndpoints() }
}

/// The webhook endpoints (docs/protocol.md "Webhooks"). `:app` is an ``AppID``, `:webhook` a
/// ``WebhookEndpointID``, `:delivery` a ``WebhookDelivery/id``.
public struct WebhookEndpoints: Sendable {
    /// `GET /v1/admin/apps/:app/webhooks`.
    public var list: Endpoint<Void, WebhookEndpointList> { .init(.get, "/v1/admin/apps/:app/webhooks") }
    /// `POST /v1/admin/apps/:app/webhooks` (201, with the secret, shown this once).
    public var create: Endpoint<CreateWebhookRequest, WebhookEndpointWithSecret> { .init(.post, "/v1/admin/apps/:app/webhooks") }
    /// `GET /v1/admin/apps/:app/webhooks/:webhook`.
    public var get: Endpoint<Void, WebhookEndpoint> { .init(.get, "/v1/admin/apps/:app/webhooks/:webhook") }
    /// `PATCH /v1/admin/apps/:app/webhooks/:webhook`: URL, events, description, enabled.
    public var update: Endpoint<UpdateWebhookRequest, WebhookEndpoint> { .init(.patch, "/v1/admin/apps/:app/webhooks/:webhook") }
    /// `DELETE /v1/admin/apps/:app/webhooks/:webhook` (204); its pending deliveries are given up.
    public var delete: Endpoint<Void, Void> { .init(.delete, "/v1/admin/apps/:app/webhooks/:webhook") }
    /// `POST /v1/admin/apps/:app/webhooks/:webhook/rotate-secret`: a new secret; the old one keeps
    /// signing beside it until `previous_secret_expires_at`.
    public var rotateSecret: Endpoint<Void, WebhookEndpointWithSecret> { .init(.post, "/v1/admin/apps/:app/webhooks/:webhook/rotate-secret") }
    /// `POST /v1/admin/apps/:app/webhooks/:webhook/enable`: a disabled endpoint takes events again,
    /// and its waiting deliveries are tried at once.
    public var enable: Endpoint<Void, WebhookEndpoint> { .init(.post, "/v1/admin/apps/:app/webhooks/:webhook/enable") }
    /// `GET /v1/admin/apps/:app/webhooks/:webhook/deliveries?limit=`: newest first, with every attempt.
    public var deliveries: Endpoint<Void, WebhookDeliveryList> { .init(.get, "/v1/admin/apps/:app/webhooks/:webhook/deliveries") }
    /// `POST /v1/admin/apps/:app/webhooks/:webhook/deliveries/:delivery/resend` (202): tried again
    /// at once, with the same `webhook-id`.
    public var resend: Endpoint<Void, WebhookDelivery> {
        .init(.post, "/v1/admin/apps/:app/webhooks/:webhook/deliveries/:delivery/resend")
    }

    /// Every endpoint above.
    public var all: [AnyEndpoint] {
        [list.erased, create.erased, get.erased, update.erased, delete.erased, rotateSecret.erased, enable.erased, deliveries.erased,
         resend.erased]
    }
}

/// Text fills a parameter as it is (percent-encoded): a webhook delivery's id is `msg_….whk_…`.
extension String: PathParameter {
    public var pathValue: String { self }
}
