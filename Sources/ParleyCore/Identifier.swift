import Foundation

/// The kind of thing an ``Identifier`` names; its prefix makes ids self-describing in logs and URLs.
public protocol IdentifierKind: Sendable {
    /// The short prefix written before the underscore, such as `cnv` in `cnv_01JD…`.
    static var prefix: String { get }
}

/// A typed, prefixed, time-ordered identifier such as `cnv_01JD4X7R9Q2W3E4R5T6Y7U8I9O`.
///
/// The part after the prefix is 26 characters of Crockford base32: 48 bits of Unix milliseconds
/// followed by 80 random bits (the ULID layout), so ids sort by creation time and never collide in
/// practice. The wrapper keeps a conversation id from being passed where an agent id is expected.
/// See `docs/decisions/0001-foundations.md`.
public struct Identifier<Kind: IdentifierKind>: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The full textual id, prefix included.
    public let rawValue: String

    /// Wraps an existing id without checking its shape (use ``init(validating:)`` for input).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps text from outside (a URL, a request body), or returns nil when it is not an id of this kind.
    public init?(validating text: String) {
        let prefix = Kind.prefix + "_"
        guard text.hasPrefix(prefix), text.count == prefix.count + 26,
              text.dropFirst(prefix.count).allSatisfy({ Crockford.alphabet.contains($0) })
        else { return nil }
        self.rawValue = text
    }

    /// Makes a new id for the given moment, with fresh randomness.
    ///
    /// The system's generator is drawn from here, not passed `inout`: it has no stored bytes, so
    /// every thread's `inout` access to it is at one and the same address, which ThreadSanitizer
    /// reports as a race (there is none: it holds no state).
    public static func generate(at date: Date = Date()) -> Self {
        let millis = UInt64(max(0, Timestamp.millis(date)))
        return Self(rawValue: Kind.prefix + "_" + Crockford.encode(millis: millis, high: .random(in: .min ... .max), low: .random(in: .min ... .max)))
    }

    /// Makes a new id from an injected source of randomness (deterministic tests).
    public static func generate<R: RandomNumberGenerator>(at date: Date, using generator: inout R) -> Self {
        let millis = UInt64(max(0, Timestamp.millis(date)))
        let high = generator.next(), low = generator.next()
        return Self(rawValue: Kind.prefix + "_" + Crockford.encode(millis: millis, high: high, low: low))
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = Self(validating: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a valid \(Kind.prefix) id")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

enum Crockford {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// 10 characters of time (48 bits, top 2 bits of the 50 always zero) then 16 of randomness
    /// (80 bits: the low 40 of `high` and of `low`).
    static func encode(millis: UInt64, high randomHigh: UInt64, low randomLow: UInt64) -> String {
        var characters: [Character] = []
        characters.reserveCapacity(26)
        for index in (0..<10).reversed() {
            characters.append(alphabet[Int((millis >> (UInt64(index) * 5)) & 31)])
        }
        let high = randomHigh & ((1 << 40) - 1)
        let low = randomLow & ((1 << 40) - 1)
        for part in [high, low] {
            for index in (0..<8).reversed() {
                characters.append(alphabet[Int((part >> (UInt64(index) * 5)) & 31)])
            }
        }
        return String(characters)
    }
}

public enum AppKind: IdentifierKind { public static let prefix = "app" }
public enum QueueKind: IdentifierKind { public static let prefix = "que" }
public enum AgentKind: IdentifierKind { public static let prefix = "agt" }
public enum VisitorKind: IdentifierKind { public static let prefix = "vis" }
public enum ConversationKind: IdentifierKind { public static let prefix = "cnv" }
public enum CannedResponseKind: IdentifierKind { public static let prefix = "cnd" }

/// An app (tenant): public, embedded in the mobile app.
public typealias AppID = Identifier<AppKind>
/// A queue (entry point, named area) of an app.
public typealias QueueID = Identifier<QueueKind>
/// A support agent or admin.
public typealias AgentID = Identifier<AgentKind>
/// A visitor (an app user, anonymous and device-bound or verified).
public typealias VisitorID = Identifier<VisitorKind>
/// A conversation between a visitor and the app's agents.
public typealias ConversationID = Identifier<ConversationKind>
/// A canned response (a saved reply) of an app.
public typealias CannedResponseID = Identifier<CannedResponseKind>
