import Foundation

extension Endpoint {
    /// `/v1/conversations/…`: a conversation, its history and what its visitor and agents do in it.
    public static var conversations: ConversationEndpoints { ConversationEndpoints() }
}

/// The conversation endpoints (docs/protocol.md "Conversations"). `:id` is a ``ConversationID``.
public struct ConversationEndpoints: Sendable {
    /// `POST /v1/conversations`: a visitor opens a conversation (201).
    public var open: Endpoint<OpenConversationRequest, Conversation> { .init(.post, "/v1/conversations") }
    /// `GET /v1/conversations?view=&tag=&priority=&queue_id=&agent_id=&cursor=&limit=`: the caller's
    /// conversations; for agents an inbox view (queued, mine, unread, waiting, snoozed, agent, queue,
    /// ended, all) with each conversation's triage, paged.
    public var list: Endpoint<Void, ConversationList> { .init(.get, "/v1/conversations") }
    /// `GET /v1/conversations/:id`.
    public var get: Endpoint<Void, Conversation> { .init(.get, "/v1/conversations/:id") }
    /// `GET /v1/conversations/:id/events?after=|before=&limit=&wait=`: history by seq.
    public var events: Endpoint<Void, EventPage> { .init(.get, "/v1/conversations/:id/events") }
    /// `POST /v1/conversations/:id/messages`: 201, or 200 for a duplicate client message id.
    public var send: Endpoint<SendMessageRequest, SendMessageResponse> { .init(.post, "/v1/conversations/:id/messages") }
    /// `POST /v1/conversations/:id/end`.
    public var end: Endpoint<Void, Conversation> { .init(.post, "/v1/conversations/:id/end") }
    /// `POST /v1/conversations/:id/read`: 204.
    public var read: Endpoint<ReadRequest, Void> { .init(.post, "/v1/conversations/:id/read") }
    /// `POST /v1/conversations/:id/typing`: 204.
    public var typing: Endpoint<TypingRequest, Void> { .init(.post, "/v1/conversations/:id/typing") }
    /// `POST /v1/conversations/:id/accept`: an agent takes a queued conversation.
    public var accept: Endpoint<Void, Conversation> { .init(.post, "/v1/conversations/:id/accept") }
    /// `POST /v1/conversations/:id/transfer`: to another agent or queue (agents only).
    public var transfer: Endpoint<TransferRequest, Conversation> { .init(.post, "/v1/conversations/:id/transfer") }
    /// `GET /v1/conversations/:id/notes?after=&limit=`: internal notes (agents only).
    public var notes: Endpoint<Void, NoteList> { .init(.get, "/v1/conversations/:id/notes") }
    /// `POST /v1/conversations/:id/notes`: 201, or 200 for a duplicate (agents only).
    public var addNote: Endpoint<AddNoteRequest, InternalNote> { .init(.post, "/v1/conversations/:id/notes") }
    /// `PUT /v1/conversations/:id/rating`: the visitor rates an ended conversation.
    public var rate: Endpoint<RatingRequest, Rating> { .init(.put, "/v1/conversations/:id/rating") }
    /// `GET /v1/conversations/:id/rating`.
    public var rating: Endpoint<Void, Rating> { .init(.get, "/v1/conversations/:id/rating") }
    /// `PUT /v1/conversations/:id/forms/post_chat`: the visitor answers the post-chat form.
    public var submitPostChat: Endpoint<SubmitFormRequest, FormSubmission> { .init(.put, "/v1/conversations/:id/forms/post_chat") }
    /// `GET /v1/conversations/:id/forms`: the forms answered in the conversation.
    public var forms: Endpoint<Void, FormSubmissionList> { .init(.get, "/v1/conversations/:id/forms") }

    /// `POST /v1/conversations/:id/pages`: the assigned agent shows the visitor a web page
    /// (a `page_pushed` event); 201 when stored, 200 for a resend of the same `client_message_id`.
    public var pushPage: Endpoint<PushPageRequest, SendMessageResponse> { .init(.post, "/v1/conversations/:id/pages") }

    /// `GET /v1/conversations/:id/triage`: its tags, priority and snooze (agents only).
    public var triage: Endpoint<Void, Triage> { .init(.get, "/v1/conversations/:id/triage") }
    /// `PUT /v1/conversations/:id/triage`: changes the fields given (agents only).
    public var setTriage: Endpoint<TriageUpdate, Triage> { .init(.put, "/v1/conversations/:id/triage") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] {
        [open.erased, list.erased, get.erased, events.erased, send.erased, end.erased, read.erased, typing.erased,
         accept.erased, transfer.erased, notes.erased, addNote.erased, rate.erased, rating.erased,
         submitPostChat.erased, forms.erased, pushPage.erased, triage.erased, setTriage.erased]
    }
}
