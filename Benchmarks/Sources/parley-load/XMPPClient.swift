import NIOCore

/// What an XMPP connection tells its owner, on the socket's event loop.
protocol XMPPClientDelegate: AnyObject {
    /// Logged in, bound, stream management on.
    func xmppReady(_ client: XMPPClient)
    /// The account exists (registration goals only).
    func xmppRegistered(_ client: XMPPClient)
    /// A stanza (message, presence, iq) after login.
    func xmpp(_ client: XMPPClient, stanza: StartTag)
    /// XEP-0198 `<a h=…/>`: the server has handled `handled` of this connection's stanzas.
    func xmpp(_ client: XMPPClient, handled: Int)
    func xmpp(_ client: XMPPClient, failed reason: String)
    func xmppClosed(_ client: XMPPClient)
}

/// One XMPP client connection over a `Socket`: runs the login, answers the server's XEP-0198 ack
/// requests, and hands stanzas and acks to its delegate. Not thread-safe: use it on its socket's
/// event loop only.
final class XMPPClient: SocketDelegate, @unchecked Sendable {
    private(set) var socket: Socket!
    private var login: XMPPLogin
    weak var delegate: (any XMPPClientDelegate)?
    /// Stanzas received since stream management was enabled: the `h` this side reports.
    private(set) var stanzasReceived: Int

    /// `handled` continues the count of a session being resumed.
    init(index: Int, login: XMPPLogin, delegate: any XMPPClientDelegate, handled: Int = 0) {
        self.login = login
        self.delegate = delegate
        stanzasReceived = handled
        socket = Socket(index: index, delegate: self)
    }

    var isReady: Bool { login.isReady }
    var resumptionToken: String? { login.resumptionToken }

    // MARK: SocketDelegate

    func socketOpened(_ socket: Socket) {
        run(login.start())
    }

    func socketClosed(_ socket: Socket) {
        delegate?.xmppClosed(self)
    }

    func socket(_ socket: Socket, text: ByteBuffer) {
        text.withUnsafeReadableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let tag = StartTag(bytes) else {
                delegate?.xmpp(self, failed: "not an XML element: \(String(decoding: raw.prefix(200), as: UTF8.self))")
                return
            }
            if login.isReady {
                receiveInSession(tag)
            } else {
                let type = tag.attribute("type").map(tag.string)
                let id = tag.attribute("id").map(tag.string)
                run(login.receive(.init(name: tag.string(tag.name), type: type, id: id, text: String(decoding: raw, as: UTF8.self))))
            }
        }
    }

    // MARK: Private

    private func receiveInSession(_ tag: StartTag) {
        if tag.isNamed("message") || tag.isNamed("presence") || tag.isNamed("iq") {
            stanzasReceived += 1
            delegate?.xmpp(self, stanza: tag)
        } else if tag.isNamed("r") {
            // The server keeps every stanza it sent until the client acks it; an unanswered queue
            // grows until Prosody ends the session (smacks_max_queue_size).
            write(XMPP.ack(handled: stanzasReceived))
            socket.flushIfNeeded()
        } else if tag.isNamed("a") {
            guard let handled = tag.integerAttribute("h") else {
                delegate?.xmpp(self, failed: "an <a/> without h: \(tag.string(0..<tag.bytes.count))")
                return
            }
            delegate?.xmpp(self, handled: handled)
        } else {
            // stream:error, close, anything else: the session is over or broken.
            delegate?.xmpp(self, failed: "socket \(socket.index): \(tag.string(0..<min(tag.bytes.count, 300)))")
        }
    }

    private func run(_ actions: [XMPPLogin.Action]) {
        for action in actions {
            switch action {
            case .send(let element):
                write(element)
                socket.flushIfNeeded()
            case .registered:
                delegate?.xmppRegistered(self)
            case .ready:
                delegate?.xmppReady(self)
            case .fail(let reason):
                delegate?.xmpp(self, failed: reason)
                socket.drop()
            }
        }
    }

    /// Queues one element as one text frame (RFC 7395 §3.3.3); the caller flushes.
    func write(_ element: String) {
        guard let context = socket.context else { return }
        var buffer = context.channel.allocator.buffer(capacity: element.utf8.count)
        buffer.writeString(element)
        socket.write(buffer)
    }
}
