import Foundation
import ParleyCore
import ParleyStore

/// The typed settings an app keeps in the store as JSON documents: its appearance, its link
/// policy and each queue's business hours. One key per document; a missing one means "not set".
struct AppSettings: Sendable {
    let store: any ParleyStore
    let clock: any WallClock

    static let appearanceKey = "appearance"
    static let linkPolicyKey = "link_policy"
    static func hoursKey(_ queue: QueueID) -> String { "hours:\(queue.rawValue)" }

    /// The app's appearance (empty when never set).
    func appearance(app: AppID) async throws -> Appearance {
        try await read(Appearance.self, Self.appearanceKey, app: app) ?? Appearance()
    }

    /// Checks and stores the app's appearance.
    /// - Throws: 400 with the field at fault.
    func setAppearance(_ appearance: Appearance, app: AppID) async throws {
        try appearance.check()
        try await write(appearance, Self.appearanceKey, app: app)
    }

    /// Where the app's chat links go (the defaults when never set).
    func linkPolicy(app: AppID) async throws -> LinkPolicy {
        try await read(LinkPolicy.self, Self.linkPolicyKey, app: app) ?? .defaults
    }

    /// Checks and stores the app's link policy.
    /// - Throws: 400 with the field at fault.
    func setLinkPolicy(_ policy: LinkPolicy, app: AppID) async throws {
        try policy.check()
        try await write(policy, Self.linkPolicyKey, app: app)
    }

    /// A queue's business hours; nil when it is always open.
    func hours(queue: QueueID, app: AppID) async throws -> BusinessHours? {
        try await read(BusinessHours.self, Self.hoursKey(queue), app: app)
    }

    /// Checks and stores a queue's business hours; nil makes it always open.
    /// - Throws: 400 naming what is wrong (an unknown zone, overlapping intervals…).
    func setHours(_ hours: BusinessHours?, queue: QueueID, app: AppID) async throws {
        if let hours {
            do {
                try hours.checkDefinition()
            } catch {
                throw APIError.badRequest("business hours: \(error)")
            }
        }
        try await write(hours, Self.hoursKey(queue), app: app)
    }

    func read<T: Decodable>(_ type: T.Type, _ key: String, app: AppID) async throws -> T? {
        try await store.setting(key, app: app).map { try ParleyJSON.decode(type, from: Data($0.utf8)) }
    }

    func write<T: Encodable>(_ value: T?, _ key: String, app: AppID) async throws {
        let text = try value.map { String(decoding: try ParleyJSON.encode($0), as: UTF8.self) }
        try await store.setSetting(key, app: app, value: text, at: clock.now())
    }
}
