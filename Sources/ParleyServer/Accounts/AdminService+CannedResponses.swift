import Foundation
import ParleyCore
import ParleyStore

extension AdminService {
    /// Creates a canned response; `shortcut`, `title` and `text` are required.
    public func createCannedResponse(app: AppID, _ request: CannedResponseRequest) async throws -> CannedResponse {
        guard let shortcut = request.shortcut, let title = request.title, let text = request.text else {
            throw APIError.badRequest("shortcut, title and text are required")
        }
        guard try await store.app(app) != nil else { throw APIError.notFound("app not found") }
        let now = clock.now()
        let response = CannedResponse(id: .generate(), appID: app, shortcut: shortcut, title: title, text: text, createdAt: now, updatedAt: now)
        try Self.check(response)
        try await store.insertCannedResponse(response)
        return try await store.cannedResponse(response.id, app: app) ?? response
    }

    /// Changes the fields given of a canned response.
    public func updateCannedResponse(_ id: CannedResponseID, app: AppID, _ request: CannedResponseRequest) async throws -> CannedResponse {
        guard var response = try await store.cannedResponse(id, app: app) else { throw APIError.notFound("canned response not found") }
        if let shortcut = request.shortcut { response.shortcut = shortcut }
        if let title = request.title { response.title = title }
        if let text = request.text { response.text = text }
        response.updatedAt = clock.now()
        try Self.check(response)
        try await store.updateCannedResponse(response)
        return try await store.cannedResponse(id, app: app) ?? response
    }

    /// Deletes a canned response.
    public func deleteCannedResponse(_ id: CannedResponseID, app: AppID) async throws {
        guard try await store.deleteCannedResponse(id, app: app) else { throw APIError.notFound("canned response not found") }
    }

    /// A canned response's text is inserted into a message, so it follows the message rules.
    private static func check(_ response: CannedResponse) throws {
        try Validation.shortcut(response.shortcut)
        try Validation.shortText(response.title, field: "title", maxLength: 100, required: true)
        try Validation.messageText(response.text)
    }
}
