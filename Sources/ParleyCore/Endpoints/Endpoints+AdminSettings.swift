import Foundation

/// What an admin sets for the chat screens and sign-in: forms, appearance, business hours,
/// identity, masking. `:kind` is a ``Form/Kind``.
extension AdminEndpoints {
    /// `GET /v1/admin/apps/:app/forms/:kind?queue=`: one queue's form, or without `queue` the app-wide one.
    public var form: Endpoint<Void, Form> { .init(.get, "/v1/admin/apps/:app/forms/:kind") }
    /// `PUT /v1/admin/apps/:app/forms/:kind?queue=`.
    public var setForm: Endpoint<Form, Form> { .init(.put, "/v1/admin/apps/:app/forms/:kind") }
    /// `DELETE /v1/admin/apps/:app/forms/:kind?queue=` (204).
    public var deleteForm: Endpoint<Void, Void> { .init(.delete, "/v1/admin/apps/:app/forms/:kind") }

    /// `GET /v1/admin/apps/:app/appearance`.
    public var appearance: Endpoint<Void, Appearance> { .init(.get, "/v1/admin/apps/:app/appearance") }
    /// `PUT /v1/admin/apps/:app/appearance`.
    public var setAppearance: Endpoint<Appearance, Appearance> { .init(.put, "/v1/admin/apps/:app/appearance") }

    /// `GET /v1/admin/apps/:app/queues/:queue/hours`: 404 when the queue is always open.
    public var hours: Endpoint<Void, BusinessHours> { .init(.get, "/v1/admin/apps/:app/queues/:queue/hours") }
    /// `PUT /v1/admin/apps/:app/queues/:queue/hours`.
    public var setHours: Endpoint<BusinessHours, BusinessHours> { .init(.put, "/v1/admin/apps/:app/queues/:queue/hours") }
    /// `DELETE /v1/admin/apps/:app/queues/:queue/hours`: the queue is always open again (204).
    public var deleteHours: Endpoint<Void, Void> { .init(.delete, "/v1/admin/apps/:app/queues/:queue/hours") }

    /// `GET /v1/admin/apps/:app/identity`: how the app proves who its users are.
    public var identity: Endpoint<Void, IdentitySettings> { .init(.get, "/v1/admin/apps/:app/identity") }
    /// `PUT /v1/admin/apps/:app/identity`.
    public var setIdentity: Endpoint<IdentitySettings, IdentitySettings> { .init(.put, "/v1/admin/apps/:app/identity") }

    /// `GET /v1/admin/apps/:app/masking`: what the app masks (the defaults when never set).
    public var masking: Endpoint<Void, MaskingRules> { .init(.get, "/v1/admin/apps/:app/masking") }
    /// `PUT /v1/admin/apps/:app/masking`: replaces the rules; 400 naming the field for a bad or unsafe pattern.
    public var setMasking: Endpoint<MaskingRules, MaskingRules> { .init(.put, "/v1/admin/apps/:app/masking") }

    /// `GET /v1/admin/apps/:app/link-policy`: where the app's chat links go (the defaults when never set).
    public var linkPolicy: Endpoint<Void, LinkPolicy> { .init(.get, "/v1/admin/apps/:app/link-policy") }
    /// `PUT /v1/admin/apps/:app/link-policy`: replaces it; 400 naming the field for a bad host or origin.
    public var setLinkPolicy: Endpoint<LinkPolicy, LinkPolicy> { .init(.put, "/v1/admin/apps/:app/link-policy") }

    var settings: [AnyEndpoint] {
        [form.erased, setForm.erased, deleteForm.erased, appearance.erased, setAppearance.erased,
         hours.erased, setHours.erased, deleteHours.erased, identity.erased, setIdentity.erased, masking.erased, setMasking.erased,
         linkPolicy.erased, setLinkPolicy.erased]
    }
}
