/// The client side of an XMPP login over WebSocket, as a pure state machine: feed it each element
/// the server sends, carry out the actions it returns. It knows no sockets.
///
///     open → features → [register (XEP-0077)] → SASL PLAIN → open again → features
///          → bind → enable stream management (XEP-0198) → ready
///     … → SASL PLAIN → open again → features → resume (XEP-0198) → ready   (goal .resume)
///
/// Session establishment (RFC 3921) is skipped: Prosody 0.12 and ejabberd 23.01 mark it optional.
/// No presence is sent: the generator addresses full JIDs, which both deliver to without it.
struct XMPPLogin {
    enum Goal {
        /// Make the account and close: setup before anything is timed.
        case register
        /// Log in to an existing account.
        case login
        /// Make the account (an existing one is fine) and log in on the same connection.
        case registerAndLogin
        /// Log in and resume the hibernating session `token`, having received `handled` stanzas
        /// on it: the server then resends what it sent after those.
        case resume(token: String, handled: Int)
    }

    enum Action: Equatable {
        case send(String)
        /// The account exists now; with `.register` the connection is finished and can be closed.
        case registered
        /// Bound and stream management enabled: stanzas may flow.
        case ready
        case fail(String)
    }

    /// One element from the server, reduced to what the login looks at.
    struct Element {
        var name: String
        var type: String?
        /// The `id` attribute (XEP-0198's resumption token on `<enabled/>`).
        var id: String?
        /// The whole element, for the few children that matter (mechanisms, errors, the bound JID).
        var text: String
    }

    private enum State {
        case idle, opening(authenticated: Bool), registering, authenticating, binding, enabling, resuming, ready, finished
    }

    let domain: String
    let username: String
    let password: String
    let goal: Goal
    /// Ask the server to keep the session for resumption (XEP-0198 `resume="true"`).
    let resumable: Bool
    /// The server's resumption token, once stream management is on with `resumable`.
    private(set) var resumptionToken: String?
    private var state = State.idle

    init(domain: String, username: String, password: String = XMPP.password, goal: Goal, resumable: Bool = false) {
        self.domain = domain
        self.username = username
        self.password = password
        self.goal = goal
        self.resumable = resumable
    }

    var isReady: Bool {
        if case .ready = state { return true }
        return false
    }

    mutating func start() -> [Action] {
        state = .opening(authenticated: false)
        return [.send(XMPP.open(domain: domain))]
    }

    mutating func receive(_ element: Element) -> [Action] {
        if element.name == "stream:error" || element.name == "close" {
            return finish(.fail("\(username): the server ended the stream: \(element.text)"))
        }
        switch (state, element.name) {
        case (.opening, "open"):
            return []   // the features follow in their own frame
        case (.opening(let authenticated), "stream:features"), (.opening(let authenticated), "features"):
            if !authenticated { return registerOrAuthenticate(element) }
            if case .resume(let token, let handled) = goal {
                state = .resuming
                return [.send(XMPP.resume(token: token, handled: handled))]
            }
            return bind(element)
        case (.registering, "iq"):
            return registered(element)
        case (.authenticating, "success"):
            state = .opening(authenticated: true)
            return [.send(XMPP.open(domain: domain))]   // RFC 6120 §6.4.6: a new stream after SASL
        case (.binding, "iq"):
            return bound(element)
        case (.enabling, "enabled"):
            resumptionToken = element.id
            if resumable && element.id == nil { return finish(.fail("\(username): no resumption offered: \(element.text)")) }
            state = .ready
            return [.ready]
        case (.resuming, "resumed"):
            state = .ready
            return [.ready]
        default:
            return finish(.fail("\(username): unexpected <\(element.name)> during login: \(element.text.prefix(200))"))
        }
    }

    private mutating func registerOrAuthenticate(_ features: Element) -> [Action] {
        switch goal {
        case .login, .resume: return authenticate(features)
        case .register, .registerAndLogin: break
        }
        guard features.text.contains("jabber.org/features/iq-register") else {
            return finish(.fail("\(username): the server offers no in-band registration (allow_registration)"))
        }
        state = .registering
        return [.send(XMPP.register(username: username, password: password))]
    }

    private mutating func registered(_ answer: Element) -> [Action] {
        // An existing account is as good as a new one: the benchmark's accounts all share a password.
        let exists = answer.type == "error" && answer.text.contains("<conflict")
        guard answer.type == "result" || exists else {
            return finish(.fail("\(username): registration refused: \(answer.text.prefix(200))"))
        }
        if case .register = goal {
            state = .finished
            return [.send(XMPP.close), .registered]
        }
        state = .authenticating
        return [.registered, .send(XMPP.authenticate(username: username, password: password))]
    }

    private mutating func authenticate(_ features: Element) -> [Action] {
        guard features.text.contains(">PLAIN<") else {
            return finish(.fail("\(username): the server offers no SASL PLAIN: \(features.text.prefix(300))"))
        }
        state = .authenticating
        return [.send(XMPP.authenticate(username: username, password: password))]
    }

    private mutating func bind(_ features: Element) -> [Action] {
        guard features.text.contains("urn:ietf:params:xml:ns:xmpp-bind") else {
            return finish(.fail("\(username): no resource binding offered after login"))
        }
        state = .binding
        return [.send(XMPP.bind(resource: XMPP.resource))]
    }

    private mutating func bound(_ answer: Element) -> [Action] {
        let expected = XMPP.fullJID(username: username, domain: domain)
        guard answer.type == "result", answer.text.contains(">\(expected)<") else {
            return finish(.fail("\(username): bind gave \(answer.text.prefix(200)), not \(expected)"))
        }
        state = .enabling
        return [.send(resumable ? XMPP.enableResumableStreamManagement : XMPP.enableStreamManagement)]
    }

    private mutating func finish(_ action: Action) -> [Action] {
        state = .finished
        return [action]
    }
}
