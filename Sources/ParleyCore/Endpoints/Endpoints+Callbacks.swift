import Foundation

extension Endpoint {
    /// `/v1/callbacks/…`: callback requests and their dialogs, Genesys' compatibility route, the
    /// agent's outcome and the admins' settings (docs/protocol.md "Callbacks").
    public static var callbacks: CallbackEndpoints { CallbackEndpoints() }
}

/// The callback endpoints. `:id` is a ``CallbackID`` (Genesys' service id), except for ``outcome``
/// where it is the request's ``ConversationID``.
public struct CallbackEndpoints: Sendable {
    /// `POST /v1/callbacks`: a visitor asks for a callback (201).
    public var request: Endpoint<RequestCallbackRequest, CallbackView> { .init(.post, "/v1/callbacks") }
    /// `GET /v1/callbacks/:id`: the request, its conversation and the dialog to show now.
    public var get: Endpoint<Void, CallbackView> { .init(.get, "/v1/callbacks/:id") }
    /// `GET /v1/callbacks/:id/dialog`: the dialog to show now (a dialog's `refresh_path`).
    public var dialog: Endpoint<Void, CallbackDialog> { .init(.get, "/v1/callbacks/:id/dialog") }
    /// `POST /v1/callbacks/:id/actions/:action`: `confirm`, `snooze`, `cancel` or `dialog`; answers
    /// the dialog for where the request stands afterwards.
    public var perform: Endpoint<Void, CallbackDialog> { .init(.post, "/v1/callbacks/:id/actions/:action") }
    /// `POST /genesys/1/service/:id/:action`: the same in Genesys Mobile Services' form (its
    /// actions, its underscore-keyed JSON), for apps built on the GMS sample.
    public var genesys: Endpoint<Void, String> { .init(.post, "/genesys/1/service/:id/:action") }
    /// `POST /v1/conversations/:id/callback/outcome`: the agent connecting with the request records how it went.
    public var outcome: Endpoint<CallbackOutcomeRequest, Conversation> { .init(.post, "/v1/conversations/:id/callback/outcome") }

    /// `GET /v1/admin/apps/:app/queues/:queue/callbacks`: a queue's callback settings (the standard ones until set).
    public var settings: Endpoint<Void, CallbackSettings> { .init(.get, "/v1/admin/apps/:app/queues/:queue/callbacks") }
    /// `PUT /v1/admin/apps/:app/queues/:queue/callbacks`.
    public var setSettings: Endpoint<CallbackSettings, CallbackSettings> { .init(.put, "/v1/admin/apps/:app/queues/:queue/callbacks") }
    /// `GET /v1/admin/apps/:app/callback-texts`: the app's own words for the dialogs, per language.
    public var texts: Endpoint<Void, CallbackTextOverrides> { .init(.get, "/v1/admin/apps/:app/callback-texts") }
    /// `PUT /v1/admin/apps/:app/callback-texts`.
    public var setTexts: Endpoint<CallbackTextOverrides, CallbackTextOverrides> { .init(.put, "/v1/admin/apps/:app/callback-texts") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] {
        [request.erased, get.erased, dialog.erased, perform.erased, genesys.erased, outcome.erased,
         settings.erased, setSettings.erased, texts.erased, setTexts.erased]
    }
}

extension CallbackAction: PathParameter {
    /// The action's name.
    public var pathValue: String { rawValue }
}
