import Foundation
import ParleyCore
import ParleyStore

extension AppSettings {
    /// `form:KIND` for the app-wide form, `form:KIND:QUEUE` for one queue's.
    static func formKey(_ kind: Form.Kind, queue: QueueID?) -> String {
        "form:\(kind.rawValue)" + (queue.map { ":\($0.rawValue)" } ?? "")
    }

    /// The forms a queue's chat shows: the queue's own, else the app's.
    func forms(app: AppID, queue: QueueID) async throws -> FormSet {
        FormSet(preChat: try await effectiveForm(.preChat, queue: queue, app: app),
                unavailable: try await effectiveForm(.unavailable, queue: queue, app: app),
                postChat: try await effectiveForm(.postChat, queue: queue, app: app))
    }

    /// The form of one kind a queue's chat shows: the queue's own, else the app's.
    func effectiveForm(_ kind: Form.Kind, queue: QueueID, app: AppID) async throws -> Form? {
        if let own = try await form(kind, queue: queue, app: app) { return own }
        return try await form(kind, queue: nil, app: app)
    }

    /// One form as stored (nil queue: the app-wide one).
    func form(_ kind: Form.Kind, queue: QueueID?, app: AppID) async throws -> Form? {
        try await store.setting(Self.formKey(kind, queue: queue), app: app).map { try ParleyJSON.decode(Form.self, from: Data($0.utf8)) }
    }

    /// Checks a form's definition and stores it for its kind and queue (replacing the one before).
    /// - Throws: 400 listing every problem (duplicate keys, a select without options…).
    func setForm(_ form: Form, app: AppID) async throws {
        do {
            try form.checkDefinition()
        } catch {
            throw APIError.badRequest("form: \(error)")
        }
        let text = String(decoding: try ParleyJSON.encode(form), as: UTF8.self)
        try await store.setSetting(Self.formKey(form.kind, queue: form.queueID), app: app, value: text, at: clock.now())
    }

    /// Removes a form: the queue then falls back to the app-wide one, the app to none.
    func deleteForm(_ kind: Form.Kind, queue: QueueID?, app: AppID) async throws {
        try await store.setSetting(Self.formKey(kind, queue: queue), app: app, value: nil, at: clock.now())
    }
}

extension ConversationService {
    /// The answers a new conversation is opened with: the unavailable form's for an offline
    /// conversation, the pre-chat form's otherwise, normalised by the same rules ParleyKit applies.
    /// - Throws: 400 `invalid_form` naming each refused field; 409 `no_form` for an offline
    ///   conversation in an app without an unavailable form; 400 for answers no form asked for.
    func openingForm(_ request: OpenConversationRequest, queue: QueueID, app: AppID, at date: Date) async throws -> FormSubmission? {
        // Only the one kind this opening needs is read: opening a conversation is frequent.
        let form: Form
        if request.offline == true {
            guard let unavailable = try await settings.effectiveForm(.unavailable, queue: queue, app: app) else {
                throw APIError.conflict("no_form", "this app takes no offline messages: it has no unavailable form")
            }
            form = unavailable
        } else if let preChat = try await settings.effectiveForm(.preChat, queue: queue, app: app) {
            form = preChat
        } else {
            if request.formAnswers != nil { throw APIError.badRequest("form_answers: this queue has no pre-chat form") }
            return nil
        }
        switch form.validate(request.formAnswers ?? FormAnswers()) {
        case .success(let answers): return FormSubmission(kind: form.kind, answers: answers, submittedAt: date)
        case .failure(let errors): throw APIError.invalidForm(errors)
        }
    }

    /// The visitor answers the post-chat form after the conversation ended (again: replaces).
    func submitPostChat(_ id: ConversationID, _ request: SubmitFormRequest, by visitor: VisitorCaller) async throws -> FormSubmission {
        let conversation = try await visible(id, to: .visitor(visitor))
        guard let form = try await settings.effectiveForm(.postChat, queue: conversation.queueID, app: visitor.appID) else {
            throw APIError.conflict("no_form", "this app has no post-chat form")
        }
        switch form.validate(request.answers) {
        case .success(let valid):
            // Validated as written (a phone number is normalised first), then masked.
            let answers = try await masking.mask(valid, app: visitor.appID, field: "answers")
            let submission = FormSubmission(kind: .postChat, answers: answers, submittedAt: clock.now())
            try await store.submitForm(submission, conversation: id, app: visitor.appID, visitor: visitor.visitorID, effects: committer.effects)
            committer.bell.ring()
            try await announceAnswers(id, app: visitor.appID)
            return submission
        case .failure(let errors):
            throw APIError.invalidForm(errors)
        }
    }

    /// The forms answered for a conversation, for its visitor and the app's agents.
    func formSubmissions(_ id: ConversationID, caller: Caller) async throws -> [FormSubmission] {
        let conversation = try await visible(id, to: caller)
        return try await store.formSubmissions(id, app: conversation.appID)
    }
}
