import Foundation
import ParleyCore

/// A queue's callback settings and the app's words for the dialogs, kept like the other settings.
extension AppSettings {
    static func callbacksKey(_ queue: QueueID) -> String { "callbacks:\(queue.rawValue)" }
    static let callbackTextsKey = "callback_texts"

    /// A queue's callback settings (``CallbackSettings/standard`` until an admin sets them).
    func callbackSettings(queue: QueueID, app: AppID) async throws -> CallbackSettings {
        try await read(CallbackSettings.self, Self.callbacksKey(queue), app: app) ?? .standard
    }

    /// Checks and stores a queue's callback settings.
    /// - Throws: 400 naming the field at fault.
    func setCallbackSettings(_ settings: CallbackSettings, queue: QueueID, app: AppID) async throws {
        if let problem = settings.problems().first { throw APIError.badRequest("\(problem.field): \(problem.message)") }
        try await write(settings, Self.callbacksKey(queue), app: app)
    }

    /// The app's own words for the callback dialogs (none until an admin sets them).
    func callbackTexts(app: AppID) async throws -> CallbackTextOverrides {
        try await read(CallbackTextOverrides.self, Self.callbackTextsKey, app: app) ?? CallbackTextOverrides()
    }

    /// Checks and stores the app's words for the callback dialogs.
    /// - Throws: 400 naming the text at fault.
    func setCallbackTexts(_ texts: CallbackTextOverrides, app: AppID) async throws {
        if let problem = texts.problems().first { throw APIError.badRequest("\(problem.field): \(problem.message)") }
        try await write(texts, Self.callbackTextsKey, app: app)
    }
}
