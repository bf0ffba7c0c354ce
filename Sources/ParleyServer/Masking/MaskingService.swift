import CoreMetrics
import Foundation
import HTTPTypes
import ParleyCore
import ParleyStore

/// Each app's masking rules on the server: read from the store, compiled once and kept, and applied
/// to every text a visitor or an agent gives before it is stored (decision 0014).
///
/// Sends must not wait on a read of the settings, so each app's ``Masker`` is kept in memory. A
/// change made on this node replaces it at once and tells the other nodes
/// (``NodeSignal/maskingChanged(_:)``); a node that missed that signal reads the rules again after
/// ``refreshInterval`` at the latest, and after any interruption of the node feed.
final class MaskingService: Sendable {
    let store: any ParleyStore
    let nodes: NodeLink
    let clock: any WallClock
    let metrics: ServerMetrics

    /// The longest a node keeps an app's rules without reading them again: 30 s.
    static let refreshInterval: TimeInterval = 30
    static let settingsKey = "masking"

    private struct Entry {
        var masker: Masker
        var readAt: Date
    }

    private struct Cache {
        var entries: [AppID: Entry] = [:]
        /// Raised by every change, so a read that began before it is not kept after it.
        var generation = 0
    }

    private let cache = Locked(Cache())

    init(store: any ParleyStore, nodes: NodeLink, clock: any WallClock, metrics: ServerMetrics) {
        self.store = store
        self.nodes = nodes
        self.clock = clock
        self.metrics = metrics
    }

    // MARK: Settings

    /// The app's rules as stored (the defaults when never set).
    func rules(app: AppID) async throws -> MaskingRules {
        guard let text = try await store.setting(Self.settingsKey, app: app) else { return .defaults }
        return try ParleyJSON.decode(MaskingRules.self, from: Data(text.utf8))
    }

    /// Checks and stores the app's rules; they apply on this node at once, on the others as soon
    /// as they hear of it.
    /// - Throws: 400 naming the field at fault (a pattern that does not compile, or that could take
    ///   too long); 404 for an unknown app. Nothing changes then.
    func setRules(_ rules: MaskingRules, app: AppID) async throws {
        do {
            try rules.check()
        } catch {
            throw APIError.badRequest(error.description)
        }
        let text = String(decoding: try ParleyJSON.encode(rules), as: UTF8.self)
        try await store.setSetting(Self.settingsKey, app: app, value: text, at: clock.now())
        forget(app)
        await nodes.announce(.maskingChanged(app))
    }

    /// Forgets what is kept for one app (its rules changed here or on another node).
    func forget(_ app: AppID) {
        cache.withLock {
            $0.entries[app] = nil
            $0.generation += 1
        }
    }

    /// Forgets every app's rules (the node feed was interrupted: a change may have been missed).
    func forgetAll() {
        cache.withLock {
            $0.entries = [:]
            $0.generation += 1
        }
    }

    // MARK: Masking

    /// The app's masker, from memory when it is fresh.
    func masker(app: AppID) async throws -> Masker {
        let now = clock.now()
        let (kept, generation) = cache.withLock { cache in
            (cache.entries[app].flatMap { now.timeIntervalSince($0.readAt) < Self.refreshInterval ? $0.masker : nil }, cache.generation)
        }
        if let kept { return kept }
        let masker: Masker
        do {
            masker = try Masker(rules: try await rules(app: app))
        } catch let failure as Validation.Failure {
            // Stored rules passed the checks when they were set; one that no longer compiles
            // (another ICU) must not stop every message of the app, nor let them through unmasked.
            throw APIError(status: .internalServerError, code: "internal", message: "the app's masking rules cannot be used: \(failure)")
        }
        cache.withLock { cache in
            if cache.generation == generation { cache.entries[app] = Entry(masker: masker, readAt: now) }
        }
        return masker
    }

    /// A text with what the app's rules find masked, counted when something was.
    /// - Throws: 400 for `field` when a custom rule ran out of budget on it.
    func mask(_ text: String, app: AppID, field: String) async throws -> String {
        let masked = try await masker(app: app).mask(text, field: field)
        if masked != text { metrics.textsMasked.increment() }
        return masked
    }

    /// Attribute values masked (keys stay as the app named them).
    func mask(_ attributes: [String: String], app: AppID, field: String) async throws -> [String: String] {
        guard !attributes.isEmpty else { return attributes }
        let masked = try await masker(app: app).mask(attributes, field: field)
        if masked != attributes { metrics.textsMasked.increment() }
        return masked
    }

    /// Form answers with their text masked.
    func mask(_ answers: [String: FormValue], app: AppID, field: String) async throws -> [String: FormValue] {
        guard !answers.isEmpty else { return answers }
        let masked = try await masker(app: app).mask(answers, field: field)
        if masked != answers { metrics.textsMasked.increment() }
        return masked
    }
}
