import Foundation

extension Endpoint {
    /// Files in conversations and the policies that bound them.
    public static var attachments: AttachmentEndpoints { AttachmentEndpoints() }
}

/// The attachment endpoints (docs/protocol.md "Attachments"). `:id` is a ``ConversationID``,
/// `:attachment` an ``AttachmentID``.
public struct AttachmentEndpoints: Sendable {
    /// `POST /v1/conversations/:id/attachments?name=&client_message_id=&caption=`: the file is the
    /// request body, raw (not JSON, not multipart). 201 with the message, or 200 for a duplicate
    /// client message id.
    public var upload: Endpoint<Void, SendMessageResponse> { .init(.post, "/v1/conversations/:id/attachments") }
    /// `GET /v1/conversations/:id/attachments/:attachment`: the file's bytes (`Range` honoured).
    public var download: Endpoint<Void, Void> { .init(.get, "/v1/conversations/:id/attachments/:attachment") }
    /// `GET /v1/attachments/policy`: the caller's app's attachment policy (visitors and agents).
    public var policy: Endpoint<Void, AttachmentPolicy> { .init(.get, "/v1/attachments/policy") }
    /// `GET /v1/admin/apps/:app/attachments`: the app's attachment policy.
    public var adminPolicy: Endpoint<Void, AttachmentPolicy> { .init(.get, "/v1/admin/apps/:app/attachments") }
    /// `PUT /v1/admin/apps/:app/attachments`.
    public var setAdminPolicy: Endpoint<AttachmentPolicy, AttachmentPolicy> { .init(.put, "/v1/admin/apps/:app/attachments") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] {
        [upload.erased, download.erased, policy.erased, adminPolicy.erased, setAdminPolicy.erased]
    }
}
