import Foundation
import ParleyCore
import ParleyStore

extension AdminService {
    /// Creates a canned response in the team's set (`owner` nil) or an agent's own; `shortcut`,
    /// `title` and `text` are required.
    public func createCannedResponse(app: AppID, owner: AgentID? = nil, _ request: CannedResponseRequest) async throws -> CannedResponse {
        guard let shortcut = request.shortcut, let title = request.title, let text = request.text else {
            throw APIError.badRequest("shortcut, title and text are required")
        }
        guard try await store.app(app) != nil else { throw APIError.notFound("app not found") }
        let now = clock.now()
        let response = CannedResponse(id: .generate(), appID: app, ownerID: owner, shortcut: shortcut, title: title, text: text, createdAt: now, updatedAt: now)
        try Self.check(response)
        try await store.insertCannedResponse(response)
        return try await store.cannedResponse(response.id, app: app, owner: owner) ?? response
    }

    /// Changes the fields given of a canned response of the set `owner` names (another set's is not found).
    public func updateCannedResponse(_ id: CannedResponseID, app: AppID, owner: AgentID? = nil, _ request: CannedResponseRequest) async throws -> CannedResponse {
        guard var response = try await store.cannedResponse(id, app: app, owner: owner) else { throw APIError.notFound("canned response not found") }
        if let shortcut = request.shortcut { response.shortcut = shortcut }
        if let title = request.title { response.title = title }
        if let text = request.text { response.text = text }
        response.updatedAt = clock.now()
        try Self.check(response)
        try await store.updateCannedResponse(response)
        return try await store.cannedResponse(id, app: app, owner: owner) ?? response
    }

    /// Deletes a canned response of the set `owner` names.
    public func deleteCannedResponse(_ id: CannedResponseID, app: AppID, owner: AgentID? = nil) async throws {
        guard try await store.deleteCannedResponse(id, app: app, owner: owner) else { throw APIError.notFound("canned response not found") }
    }

    /// What an agent's picker offers: their own responses, then the team's, each by shortcut.
    public func cannedResponses(for agent: AgentID, app: AppID) async throws -> [CannedResponse] {
        try await store.cannedResponses(app: app, owner: agent) + store.cannedResponses(app: app, owner: nil)
    }

    /// A canned response's text is inserted into a message, so it follows the message rules.
    private static func check(_ response: CannedResponse) throws {
        try Validation.shortcut(response.shortcut)
        try Validation.shortText(response.title, field: "title", maxLength: 100, required: true)
        try Validation.messageText(response.text)
    }
}
