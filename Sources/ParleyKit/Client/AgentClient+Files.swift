import Foundation
import ParleyCore

extension AgentClient {
    /// Sends a file into a conversation assigned to the agent, with an optional caption; retries a
    /// lost answer with the same client id, so the file is stored once.
    /// - Parameters:
    ///   - file: the file.
    ///   - name: the name sent with it; default the file's own.
    ///   - caption: text sent with it; default none.
    ///   - conversation: the conversation.
    ///   - progress: called with the bytes sent so far.
    /// - Returns: the stored message event.
    /// - Throws: ``ParleyError`` (the server's refusal: too large, a refused type…).
    @discardableResult
    public func sendFile(at file: URL, name: String? = nil, caption: String = "", in conversation: ConversationID,
                         progress: @escaping @Sendable (FileProgress) -> Void = { _ in }) async throws -> ConversationEvent {
        let name = name ?? file.lastPathComponent
        let size = Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)??.int64Value ?? 0)
        let clientID = UUID().uuidString.lowercased()
        let endpoint: Endpoint<Void, SendMessageResponse> = Endpoint<Void, SendMessageResponse>.attachments.upload(conversation)
            .query("name", name).query("client_message_id", clientID).query("caption", caption.isEmpty ? nil : caption)
        return try await retryingLostAnswers {
            try await http.upload(endpoint, file: file, contentType: "application/octet-stream", token: try token()) { sent in
                progress(FileProgress(completed: sent, total: size))
            }.event
        }
    }

    /// Downloads a file of a conversation of the agent's app to `destination`, resuming a broken
    /// download from `destination` + `.part`; the file appears only once complete and checked.
    /// - Parameters:
    ///   - attachment: the file, from a message.
    ///   - conversation: its conversation.
    ///   - destination: where the file goes (replaced if there).
    ///   - progress: called as bytes arrive.
    /// - Throws: ``ParleyError``.
    public func download(_ attachment: Attachment, in conversation: ConversationID, to destination: URL,
                         progress: @escaping @Sendable (FileProgress) -> Void = { _ in }) async throws {
        try await http.fetch(attachment, in: conversation, to: destination, token: try token(), report: progress)
    }
}
