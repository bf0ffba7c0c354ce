import NIOCore

/// What a pair engine keeps for `--target prosody` and `--target ejabberd`.
struct XMPPPairState {
    /// Socket i's connection (the sockets' delegates are weak, so the engine holds these).
    var clients: [XMPPClient] = []
    /// Socket i's peer (socket i^1) as a full JID: where sender i's messages go.
    var peerJIDs: [String] = []
    /// The last XEP-0198 `h` the server reported on socket i: how many of its messages are handled.
    var handled: [Int] = []
}

/// Pairs over XMPP: each pair's two accounts exchange `<message type="chat">` stanzas, the message
/// id carrying sender, number and intended send time as for parleyd. After every message the
/// sender asks for an ack (`<r/>`); Prosody answers `<a h=N/>` once it has handled the first N
/// stanzas of that stream, and it handles one stream's elements in order, each to the end —
/// archived into both users' archives, then routed — before the next. ejabberd 23.01 likewise
/// handles a stream's elements in order in the sender's session process, and its `<a h=N/>` comes
/// once message N is in the sender's archive and routed; the recipient's copy is archived by the
/// recipient's session process just before it writes the message to that socket, so a delivery
/// still means both copies are stored, as with Prosody.
extension PairEngine: XMPPClientDelegate {
    func xmppReady(_ client: XMPPClient) {
        readyCount += 1
    }

    func xmppRegistered(_ client: XMPPClient) {}

    func xmpp(_ client: XMPPClient, stanza: StartTag) {
        guard stanza.isNamed("message") else { return }
        let me = client.socket.index
        if stanza.attributeIs("type", "error") {
            // A bounce keeps the original id; it is an error, never a delivery.
            totalErrors += 1
            note("socket \(me): \(stanza.string(0..<min(stanza.bytes.count, 300)))")
            return
        }
        guard let id = stanza.attribute("id"), id.count > 1, stanza.bytes[id.lowerBound] == UInt8(ascii: "m"),
              let (s, n, t) = Self.messageNumbers(in: stanza.bytes, from: id.lowerBound + 1, to: id.upperBound)
        else { return }
        deliver(to: me, sender: s, n: n, intended: t)
    }

    func xmpp(_ client: XMPPClient, handled: Int) {
        let i = client.socket.index
        let newlyHandled = handled - xmpp.handled[i]
        guard newlyHandled > 0 else { return }
        xmpp.handled[i] = handled
        countAcked(newlyHandled)
    }

    func xmpp(_ client: XMPPClient, failed reason: String) {
        totalErrors += 1
        note(reason)
    }

    func xmppClosed(_ client: XMPPClient) {
        socketClosed(client.socket)
    }

    /// Queues sender `s`'s message and the ack request after it; the caller flushes.
    func writeXMPPMessage(from s: Int, id: String) {
        let client = xmpp.clients[s]
        client.write(XMPP.chat(to: xmpp.peerJIDs[s], id: id, body: payload))
        client.write(XMPP.requestAck)
    }
}

extension RunContext {
    /// Registers (or reuses) one account per socket, logs every socket in, and waits until all are
    /// bound with stream management on.
    func setUpXMPPPairs(_ engine: PairEngine) async throws {
        let loop = engine.loop
        let count = 2 * engine.pairs
        let clients = (0..<count).map { i in
            XMPPClient(index: i, login: XMPPLogin(domain: xmppDomain, username: XMPP.pairUsername(socket: i), goal: .registerAndLogin),
                       delegate: engine)
        }
        let domain = xmppDomain
        try await loop.submit {
            engine.xmpp.clients = clients
            engine.xmpp.peerJIDs = (0..<count).map { XMPP.fullJID(username: XMPP.pairUsername(socket: $0 ^ 1), domain: domain) }
            engine.xmpp.handled = Array(repeating: 0, count: count)
            for client in clients { engine.sockets[client.socket.index] = client.socket }
        }.get()
        try await connectAll(clients.map { ($0.socket, XMPP.path, XMPP.upgradeHeaders, nil) })
        try await wait("XMPP logins", timeout: 120, on: loop) { engine.readyCount == count || !engine.firstErrors.isEmpty }
        let (ready, errors) = try await loop.submit { (engine.readyCount, engine.firstErrors) }.get()
        guard ready == count else { throw LoadError("\(ready) of \(count) XMPP logins done; errors: \(errors)") }
    }

    /// Makes the accounts by in-band registration, `width` connections at a time; accounts that
    /// exist already are fine. Setup only: nothing here is timed.
    func registerXMPPAccounts(_ usernames: [String], width: Int = 128) async throws {
        let loop = group.next()
        var start = 0
        while start < usernames.count {
            let batch = start..<min(start + width, usernames.count)
            let registrar = XMPPRegistrar()
            let clients = batch.map { i in
                XMPPClient(index: i, login: XMPPLogin(domain: xmppDomain, username: usernames[i], goal: .register), delegate: registrar)
            }
            try await loop.submit { registrar.clients = clients }.get()
            try await connectAll(clients.map { ($0.socket, XMPP.path, XMPP.upgradeHeaders, nil) }, width: width)
            try await wait("registrations", timeout: 120, on: loop) { registrar.finished == clients.count }
            let errors = try await loop.submit { registrar.errors }.get()
            if !errors.isEmpty { throw LoadError("registration failed: \(errors.prefix(3))") }
            start = batch.upperBound
        }
    }
}

/// Counts registrations and closes each connection once its account exists.
final class XMPPRegistrar: XMPPClientDelegate, @unchecked Sendable {
    var clients: [XMPPClient] = []
    var finished = 0
    var errors: [String] = []

    func xmppRegistered(_ client: XMPPClient) {
        finished += 1
        client.socket.drop()
    }

    func xmpp(_ client: XMPPClient, failed reason: String) {
        finished += 1
        errors.append(reason)
    }

    func xmppReady(_ client: XMPPClient) {}
    func xmpp(_ client: XMPPClient, stanza: StartTag) {}
    func xmpp(_ client: XMPPClient, handled: Int) {}
    func xmppClosed(_ client: XMPPClient) {}
}
