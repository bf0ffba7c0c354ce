import Foundation
import JWTKit
import NIOHTTP1

/// Apps' public key sets, fetched through the ``OutboundClient`` and kept for a while.
actor JWKSCache {
    /// One fetched JWKS, its keys ready to verify with (parsed once per fetch, not per token).
    struct Entry: Sendable {
        var keys: JWTKeyCollection
        var kids: Set<String>
        var keyCount: Int
        var fetchedAt: Date

        /// True when a token with this `kid` (or none, with a single key) can be checked.
        func holds(kid: String?) -> Bool {
            if let kid { return kids.contains(kid) }
            return keyCount == 1
        }
    }

    private let outbound: OutboundClient
    private var entries: [URL: Entry] = [:]
    private var lastFetch: [URL: Date] = [:]
    /// Sets kept at once; the oldest is dropped past it.
    private let capacity = 1_000

    init(outbound: OutboundClient) { self.outbound = outbound }

    /// The JWKS at `url`, fetched when none is held or the one held is older than `maximumAge`.
    func jwks(_ url: URL, now: Date, maximumAge: TimeInterval) async throws -> Entry {
        if let entry = entries[url], now.timeIntervalSince(entry.fetchedAt) < maximumAge { return entry }
        return try await fetch(url, now: now)
    }

    /// Fetches again, unless the last fetch was less than `minimumInterval` ago (then nil): an
    /// unknown `kid` may mean the keys rotated, or someone sending made-up kids.
    func refetch(_ url: URL, now: Date, minimumInterval: TimeInterval) async throws -> Entry? {
        if let last = lastFetch[url], now.timeIntervalSince(last) < minimumInterval { return nil }
        return try await fetch(url, now: now)
    }

    private func fetch(_ url: URL, now: Date) async throws -> Entry {
        lastFetch[url] = now
        let response: OutboundClient.Response
        do {
            response = try await outbound.send(.GET, url)
        } catch {
            throw IdentityError.unavailable("the app's JWKS could not be fetched: \(error)")
        }
        guard response.status == 200,
              let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
              let keys = object["keys"] as? [[String: Any]]
        else { throw IdentityError.unavailable("the app's JWKS URL answered \(response.status) without a key set") }
        let collection = JWTKeyCollection()
        do {
            try await collection.add(jwksJSON: String(decoding: response.body, as: UTF8.self))
        } catch {
            throw IdentityError.unavailable("the app's JWKS could not be read: \(error)")
        }
        let entry = Entry(keys: collection, kids: Set(keys.compactMap { $0["kid"] as? String }), keyCount: keys.count, fetchedAt: now)
        if entries[url] == nil, entries.count >= capacity, let oldest = entries.min(by: { $0.value.fetchedAt < $1.value.fetchedAt })?.key {
            entries[oldest] = nil
        }
        entries[url] = entry
        return entry
    }
}
