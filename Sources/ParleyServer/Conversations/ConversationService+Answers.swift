import Foundation
import ParleyCore
import ParleyStore

extension ConversationAnswers {
    /// A conversation's rating and form submissions as stored.
    static func read(_ id: ConversationID, app: AppID, from store: any ParleyStore) async throws -> ConversationAnswers {
        ConversationAnswers(conversationID: id, rating: try await store.rating(id, app: app),
                            formSubmissions: try await store.formSubmissions(id, app: app))
    }
}

extension ConversationService {
    /// Tells the app's agents, on every node, that a conversation's answers changed. Read back from
    /// the store, so every node sends the same thing.
    func announceAnswers(_ id: ConversationID, app: AppID) async throws {
        if hub.hasAgents(of: app) { hub.publish(try await ConversationAnswers.read(id, app: app, from: store), app: app) }
        await nodes.announce(.answersChanged(id, app: app))
    }
}
