import Foundation
import ParleyCore

/// What both stores check before keeping a post-chat form's answers, and how they keep answers.
public enum FormRules {
    /// Refuses another visitor's conversation (as not found) and one that has not ended.
    public static func checkPostChat(_ conversation: Conversation, visitor: VisitorID) throws(StoreError) {
        guard conversation.visitorID == visitor else { throw .notFound("conversation not found") }
        guard conversation.state == .ended else { throw .invalidState("the post-chat form is answered once the conversation has ended") }
    }

    /// The answers as the JSON text the stores keep.
    public static func encode(_ answers: [String: FormValue]) throws -> String {
        String(decoding: try ParleyJSON.encode(answers), as: UTF8.self)
    }

    /// A stored row back into a submission (an unknown kind, from a newer version, is skipped).
    public static func decode(kind: String, answers: String, submittedAt: Date) throws -> FormSubmission? {
        guard let kind = Form.Kind(rawValue: kind) else { return nil }
        return FormSubmission(kind: kind, answers: try ParleyJSON.decode([String: FormValue].self, from: Data(answers.utf8)), submittedAt: submittedAt)
    }
}
