import Foundation

extension AnyEndpoint {
    /// Every endpoint of the API, area by area. The server's tests check that it routes exactly
    /// these (the desk's static files under `/desk/` are files, not API, and are not listed).
    public static var all: [AnyEndpoint] {
        ServerEndpoints().all + SessionEndpoints().all + AgentEndpoints().all + ConversationEndpoints().all
            + TranscriptEndpoints().all + LifecycleEndpoints().all + TeamEndpoints().all + AdminEndpoints().all
            + AttachmentEndpoints().all + WebhookEndpoints().all + PushEndpoints().all + CallbackEndpoints().all
            + DeskEndpoints().all + ReportEndpoints().all
    }
}
