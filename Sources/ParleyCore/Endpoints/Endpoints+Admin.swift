import Foundation

extension Endpoint {
    /// `/v1/admin/…`: the operator token manages every app; an admin agent manages its own app.
    public static var admin: AdminEndpoints { AdminEndpoints() }
}

/// The administration endpoints (docs/protocol.md "Administration"). `:app` is an ``AppID``,
/// `:queue` a ``QueueID``, `:agent` an ``AgentID``, `:response` a ``CannedResponseID``. Forms,
/// appearance and business hours are in `Endpoints+AdminSettings.swift`.
public struct AdminEndpoints: Sendable {
    /// `GET /v1/admin/apps`: every app for the operator, their own for an admin.
    public var apps: Endpoint<Void, AppList> { .init(.get, "/v1/admin/apps") }
    /// `POST /v1/admin/apps`: the operator creates an app (201).
    public var createApp: Endpoint<CreateAppRequest, AppCredentials> { .init(.post, "/v1/admin/apps") }
    /// `GET /v1/admin/apps/:app`.
    public var app: Endpoint<Void, App> { .init(.get, "/v1/admin/apps/:app") }
    /// `PATCH /v1/admin/apps/:app`: renames the app.
    public var renameApp: Endpoint<CreateAppRequest, App> { .init(.patch, "/v1/admin/apps/:app") }
    /// `POST /v1/admin/apps/:app/rotate-key`: a new app key; the old one stops working.
    public var rotateKey: Endpoint<Void, AppCredentials> { .init(.post, "/v1/admin/apps/:app/rotate-key") }

    /// `GET /v1/admin/apps/:app/queues`.
    public var queues: Endpoint<Void, QueueList> { .init(.get, "/v1/admin/apps/:app/queues") }
    /// `POST /v1/admin/apps/:app/queues` (201).
    public var createQueue: Endpoint<QueueRequest, Queue> { .init(.post, "/v1/admin/apps/:app/queues") }
    /// `PATCH /v1/admin/apps/:app/queues/:queue`: renames a queue.
    public var renameQueue: Endpoint<QueueRequest, Queue> { .init(.patch, "/v1/admin/apps/:app/queues/:queue") }

    /// `GET /v1/admin/apps/:app/ratings`: the app's ratings, summed up.
    public var ratings: Endpoint<Void, RatingSummary> { .init(.get, "/v1/admin/apps/:app/ratings") }

    /// `GET /v1/admin/apps/:app/agents`.
    public var agents: Endpoint<Void, AgentList> { .init(.get, "/v1/admin/apps/:app/agents") }
    /// `POST /v1/admin/apps/:app/agents` (201, with the password when the server made one).
    public var createAgent: Endpoint<CreateAgentRequest, CreatedAgent> { .init(.post, "/v1/admin/apps/:app/agents") }
    /// `GET /v1/admin/apps/:app/agents/:agent`.
    public var agent: Endpoint<Void, Agent> { .init(.get, "/v1/admin/apps/:app/agents/:agent") }
    /// `PATCH /v1/admin/apps/:app/agents/:agent`.
    public var updateAgent: Endpoint<UpdateAgentRequest, Agent> { .init(.patch, "/v1/admin/apps/:app/agents/:agent") }
    /// `POST /v1/admin/apps/:app/agents/:agent/reset-password`: a new password, made by the server.
    public var resetPassword: Endpoint<Void, CreatedAgent> { .init(.post, "/v1/admin/apps/:app/agents/:agent/reset-password") }

    /// `GET /v1/admin/apps/:app/canned-responses`.
    public var cannedResponses: Endpoint<Void, CannedResponseList> { .init(.get, "/v1/admin/apps/:app/canned-responses") }
    /// `POST /v1/admin/apps/:app/canned-responses` (201).
    public var createCannedResponse: Endpoint<CannedResponseRequest, CannedResponse> {
        .init(.post, "/v1/admin/apps/:app/canned-responses")
    }
    /// `PATCH /v1/admin/apps/:app/canned-responses/:response`.
    public var updateCannedResponse: Endpoint<CannedResponseRequest, CannedResponse> {
        .init(.patch, "/v1/admin/apps/:app/canned-responses/:response")
    }
    /// `DELETE /v1/admin/apps/:app/canned-responses/:response` (204).
    public var deleteCannedResponse: Endpoint<Void, Void> { .init(.delete, "/v1/admin/apps/:app/canned-responses/:response") }

    /// `GET /v1/admin/apps/:app/tags`: the tags agents may put on conversations.
    public var tags: Endpoint<Void, TagList> { .init(.get, "/v1/admin/apps/:app/tags") }
    /// `PUT /v1/admin/apps/:app/tags`: replaces the list (conversations keep tags no longer in it).
    public var setTags: Endpoint<TagList, TagList> { .init(.put, "/v1/admin/apps/:app/tags") }

    /// Every endpoint above and in `Endpoints+AdminSettings.swift`.
    public var all: [AnyEndpoint] {
        [apps.erased, createApp.erased, app.erased, renameApp.erased, rotateKey.erased,
         queues.erased, createQueue.erased, renameQueue.erased, ratings.erased,
         agents.erased, createAgent.erased, agent.erased, updateAgent.erased, resetPassword.erased,
         cannedResponses.erased, createCannedResponse.erased, updateCannedResponse.erased, deleteCannedResponse.erased,
         tags.erased, setTags.erased]
            + settings
    }
}
