import Foundation

/// The XMPP elements the generator writes for `--target prosody` and `--target ejabberd`: XMPP over WebSocket (RFC 7395),
/// SASL PLAIN, resource binding, stream management (XEP-0198) and in-band registration (XEP-0077).
/// Everything written here is made from names and numbers the generator chose itself, so nothing
/// needs escaping. Stanzas name their namespace: RFC 7395's `<open/>` sets no default one.
enum XMPP {
    /// Prosody's mod_websocket endpoint; scripts/bench/ejabberd.sh serves ejabberd_http_ws at the same path.
    static let path = "/xmpp-websocket"
    /// RFC 7395 §3.2: the client must ask for the `xmpp` subprotocol.
    static let upgradeHeaders = [("Sec-WebSocket-Protocol", "xmpp")]
    /// Every benchmark account has this password (the server is private and lives for one run).
    static let password = "bench-password"
    /// Every session binds this resource, so a peer's full JID is known without asking.
    static let resource = "bench"

    static func open(domain: String) -> String {
        "<open xmlns=\"urn:ietf:params:xml:ns:xmpp-framing\" to=\"\(domain)\" version=\"1.0\"/>"
    }

    static let close = "<close xmlns=\"urn:ietf:params:xml:ns:xmpp-framing\"/>"

    static func register(username: String, password: String) -> String {
        "<iq xmlns=\"jabber:client\" type=\"set\" id=\"reg\"><query xmlns=\"jabber:iq:register\"><username>\(username)</username><password>\(password)</password></query></iq>"
    }

    /// SASL PLAIN (RFC 4616): base64 of NUL, user name, NUL, password.
    static func authenticate(username: String, password: String) -> String {
        let credentials = Data("\u{0}\(username)\u{0}\(password)".utf8).base64EncodedString()
        return "<auth xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\" mechanism=\"PLAIN\">\(credentials)</auth>"
    }

    static func bind(resource: String) -> String {
        "<iq xmlns=\"jabber:client\" type=\"set\" id=\"bind\"><bind xmlns=\"urn:ietf:params:xml:ns:xmpp-bind\"><resource>\(resource)</resource></bind></iq>"
    }

    /// Stream management without resumption: acks only.
    static let enableStreamManagement = "<enable xmlns=\"urn:xmpp:sm:3\"/>"
    /// Stream management with resumption: the server keeps the session (and queues what it sends)
    /// for a while after the connection drops.
    static let enableResumableStreamManagement = "<enable xmlns=\"urn:xmpp:sm:3\" resume=\"true\"/>"
    static func resume(token: String, handled: Int) -> String {
        "<resume xmlns=\"urn:xmpp:sm:3\" previd=\"\(token)\" h=\"\(handled)\"/>"
    }
    static let requestAck = "<r xmlns=\"urn:xmpp:sm:3\"/>"
    static func ack(handled: Int) -> String { "<a xmlns=\"urn:xmpp:sm:3\" h=\"\(handled)\"/>" }

    static func chat(to jid: String, id: String, body: String) -> String {
        "<message xmlns=\"jabber:client\" type=\"chat\" to=\"\(jid)\" id=\"\(id)\"><body>\(body)</body></message>"
    }

    /// Pair p's visitor is socket 2p and account `v<p>`; its agent is socket 2p+1 and `a<p>`.
    static func pairUsername(socket index: Int) -> String {
        (index % 2 == 0 ? "v" : "a") + String(index / 2)
    }

    static func fullJID(username: String, domain: String) -> String {
        "\(username)@\(domain)/\(resource)"
    }
}

/// The start tag of the one element in a frame (RFC 7395 §3.3.3: each WebSocket message holds
/// exactly one complete element). Reads the element's name and raw attribute values, quotes of
/// either kind, without copying; values are not unescaped, as the generator reads only ids it wrote
/// and numbers. Valid only inside the `withUnsafeReadableBytes` call that gave it `bytes`.
struct StartTag {
    let bytes: UnsafeBufferPointer<UInt8>
    let name: Range<Int>
    private let attributesStart: Int

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        var i = 0
        // Skip white space and any XML declaration before the element.
        while true {
            while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "<") else { return nil }
            guard bytes[i + 1] == UInt8(ascii: "?") else { break }
            guard let end = Self.index(of: UInt8(ascii: ">"), in: bytes, from: i) else { return nil }
            i = end + 1
        }
        let start = i + 1
        var end = start
        while end < bytes.count, !Self.isSpace(bytes[end]), bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: ">") { end += 1 }
        guard end > start, end < bytes.count else { return nil }
        name = start..<end
        attributesStart = end
    }

    func isNamed(_ literal: StaticString) -> Bool {
        matches(name, literal)
    }

    /// The raw value of attribute `key` on this tag, or nil.
    func attribute(_ key: StaticString) -> Range<Int>? {
        var i = attributesStart
        while i < bytes.count {
            while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
            guard i < bytes.count, bytes[i] != UInt8(ascii: ">"), bytes[i] != UInt8(ascii: "/") else { return nil }
            let keyStart = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "="), !Self.isSpace(bytes[i]) { i += 1 }
            let keyRange = keyStart..<i
            while i < bytes.count, bytes[i] != UInt8(ascii: "=") { i += 1 }
            i += 1
            while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { return nil }
            guard let close = Self.index(of: bytes[i], in: bytes, from: i + 1) else { return nil }
            if matches(keyRange, key) { return (i + 1)..<close }
            i = close + 1
        }
        return nil
    }

    func attributeIs(_ key: StaticString, _ value: StaticString) -> Bool {
        attribute(key).map { matches($0, value) } ?? false
    }

    /// A non-negative decimal attribute such as XEP-0198's `h`.
    func integerAttribute(_ key: StaticString) -> Int? {
        guard let range = attribute(key), !range.isEmpty else { return nil }
        var value = 0
        for i in range {
            guard bytes[i] >= 48, bytes[i] <= 57 else { return nil }
            value = value * 10 + Int(bytes[i] - 48)
        }
        return value
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private func matches(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let expected = literal.utf8Start
        for (k, i) in range.enumerated() where bytes[i] != expected[k] { return false }
        return true
    }

    private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09
    }

    private static func index(of c: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start
        while i < bytes.count {
            if bytes[i] == c { return i }
            i += 1
        }
        return nil
    }
}
