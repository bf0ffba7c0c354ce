import Foundation

/// A note agents leave on a conversation for each other. Never sent to visitors: notes are not
/// conversation events, have their own numbering and their own routes (docs/decisions/0003).
public struct InternalNote: Hashable, Sendable, Codable {
    public var conversationID: ConversationID
    /// 1, 2, 3, … within the conversation's notes; unrelated to event seqs.
    public var seq: Int64
    /// The agent who wrote it.
    public var author: Participant
    /// The writer's id for the note, so a retried write stores it once.
    public var clientNoteID: String
    public var text: String
    public var createdAt: Date

    public init(conversationID: ConversationID, seq: Int64, author: Participant, clientNoteID: String, text: String, createdAt: Date) {
        self.conversationID = conversationID
        self.seq = seq
        self.author = author
        self.clientNoteID = clientNoteID
        self.text = text
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case conversationID = "conversation_id", seq, author, clientNoteID = "client_note_id", text, createdAt = "created_at"
    }
}

/// `POST /v1/conversations/{id}/notes`.
public struct AddNoteRequest: Hashable, Sendable, Codable {
    public var clientNoteID: String
    public var text: String
    public init(clientNoteID: String, text: String) {
        self.clientNoteID = clientNoteID
        self.text = text
    }
    enum CodingKeys: String, CodingKey { case clientNoteID = "client_note_id", text }
}

/// `GET /v1/conversations/{id}/notes`: oldest first.
public struct NoteList: Hashable, Sendable, Codable {
    public var notes: [InternalNote]
    public init(notes: [InternalNote]) { self.notes = notes }
}
