/// A form an app shows around a conversation, defined by an admin for the whole app or one queue.
///
/// On the wire: `{"kind": "pre_chat", "queue_id": "que_…", "fields": [ … ]}`; no `queue_id` means app-wide.
public struct Form: Hashable, Sendable, Codable {
    /// When a form is shown.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// Before a conversation starts; its answers go with the conversation to the agent.
        case preChat = "pre_chat"
        /// Instead of a chat, when the queue is closed or no agent is online; its answers become an
        /// offline conversation that agents answer later.
        case unavailable
        /// After a conversation ends: typically a rating and a comment.
        case postChat = "post_chat"
    }

    public var kind: Kind
    /// The queue the form belongs to; nil for the app-wide form of its kind (a queue's own form wins).
    public var queueID: QueueID?
    /// The fields in display order; keys are unique.
    public var fields: [FormField]

    /// Creates a form.
    public init(kind: Kind, queueID: QueueID? = nil, fields: [FormField]) {
        self.kind = kind
        self.queueID = queueID
        self.fields = fields
    }

    /// The field with a key, if any.
    public func field(_ key: String) -> FormField? { fields.first { $0.key == key } }

    /// Checks every answer (see ``FormField/validate(_:)``) and returns the normalised answers by key,
    /// or every refused answer at once. Unanswered optional fields are left out (an optional checkbox
    /// answers `false`); answers for keys the form lacks are refused as ``FormErrorCode/unknownField``.
    public func validate(_ answers: FormAnswers) -> Result<[String: FormValue], FormValidationErrors> {
        var accepted: [String: FormValue] = [:]
        var refused: [FormValidationErrors.FieldError] = []
        for field in fields {
            switch field.validate(answers[field.key]) {
            case .success(let value): accepted[field.key] = value
            case .failure(let code): refused.append(.init(key: field.key, code: code))
            }
        }
        let known = Set(fields.map(\.key))
        for key in answers.values.keys.sorted() where !known.contains(key) {
            refused.append(.init(key: key, code: .unknownField))
        }
        return refused.isEmpty ? .success(accepted) : .failure(FormValidationErrors(fields: refused))
    }

    enum CodingKeys: String, CodingKey { case kind, queueID = "queue_id", fields }
}
