import Foundation

/// A form's answers as stored with a conversation: normalised by ``Form/validate(_:)``.
public struct FormSubmission: Hashable, Sendable, Codable {
    public var kind: Form.Kind
    public var answers: [String: FormValue]
    public var submittedAt: Date

    public init(kind: Form.Kind, answers: [String: FormValue], submittedAt: Date) {
        self.kind = kind
        self.answers = answers
        self.submittedAt = submittedAt
    }

    enum CodingKeys: String, CodingKey { case kind, answers, submittedAt = "submitted_at" }
}

/// `GET /v1/forms`: the forms a queue's chat shows, each nil when the app has none.
public struct FormSet: Hashable, Sendable, Codable {
    public var preChat: Form?
    public var unavailable: Form?
    public var postChat: Form?

    public init(preChat: Form? = nil, unavailable: Form? = nil, postChat: Form? = nil) {
        self.preChat = preChat
        self.unavailable = unavailable
        self.postChat = postChat
    }

    /// The form of a kind.
    public subscript(kind: Form.Kind) -> Form? {
        switch kind {
        case .preChat: preChat
        case .unavailable: unavailable
        case .postChat: postChat
        }
    }

    enum CodingKeys: String, CodingKey { case preChat = "pre_chat", unavailable, postChat = "post_chat" }
}

/// `PUT /v1/conversations/{id}/forms/post_chat`.
public struct SubmitFormRequest: Hashable, Sendable, Codable {
    public var answers: FormAnswers
    public init(answers: FormAnswers) { self.answers = answers }
}

/// `GET /v1/conversations/{id}/forms`.
public struct FormSubmissionList: Hashable, Sendable, Codable {
    public var submissions: [FormSubmission]
    public init(submissions: [FormSubmission]) { self.submissions = submissions }
}
