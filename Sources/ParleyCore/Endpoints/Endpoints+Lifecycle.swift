import Foundation

extension Endpoint {
    /// What a chat screen needs before a conversation starts: appearance, availability, forms,
    /// the masking rules, the link policy.
    public static var lifecycle: LifecycleEndpoints { LifecycleEndpoints() }
}

/// The endpoints a chat screen reads before a conversation starts (visitors and agents of the app).
public struct LifecycleEndpoints: Sendable {
    /// `GET /v1/appearance`: the app's colours, texts and logo.
    public var appearance: Endpoint<Void, Appearance> { .init(.get, "/v1/appearance") }
    /// `GET /v1/availability?queue=`: whether a queue is open (default: the app's first queue).
    public var availability: Endpoint<Void, AvailabilityReport> { .init(.get, "/v1/availability") }
    /// `GET /v1/forms?queue=`: the forms a queue's chat shows (default: the app's first queue).
    public var forms: Endpoint<Void, FormSet> { .init(.get, "/v1/forms") }
    /// `GET /v1/masking`: what the app masks, so ParleyKit masks it before the text leaves the device.
    public var masking: Endpoint<Void, MaskingRules> { .init(.get, "/v1/masking") }

    /// `GET /v1/link-policy`: which links open inside the chat view, and where the chat page may be embedded.
    public var linkPolicy: Endpoint<Void, LinkPolicy> { .init(.get, "/v1/link-policy") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] { [appearance.erased, availability.erased, forms.erased, masking.erased, linkPolicy.erased] }
}
