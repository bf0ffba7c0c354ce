import Foundation
import Logging
import ParleyCore

/// The one realtime socket of a client and its reconnects, driving ``ConnectionMachine``.
/// Shared by ``ParleyClient`` and ``AgentClient``; they handle the frames.
actor RealtimeLink {
    /// What the owner provides.
    struct Handlers: Sendable {
        /// A bearer token; `renew` asks for a fresh one after the server refused the last.
        var token: @Sendable (_ renew: Bool) async throws -> String
        /// The socket is open and the server said `ready`: resubscribe, resend the outbox.
        var opened: @Sendable (_ epoch: String) async -> Void
        /// Every frame after `ready`, in order.
        var frame: @Sendable (ServerFrame) async -> Void
        /// The socket is gone (a reconnect may follow).
        var lost: @Sendable () async -> Void
    }

    private let transport: any RealtimeTransport
    private let url: URL
    /// Headers the app adds to the socket's upgrade request (``ParleyConfiguration/customHeaders``).
    private let headers: [String: String]
    /// Keys the server must present (``ParleyConfiguration/pinnedKeys``).
    private let pinnedKeys: [PublicKeyPin]
    private let handlers: Handlers
    private let logger: Logger
    private var machine: ConnectionMachine
    private var channel: (any RealtimeChannel)?
    private var generation = 0
    private var retryTask: Task<Void, Never>?
    private var readerTask: Task<Void, Never>?
    private var observers: [UUID: AsyncStream<ConnectionState>.Continuation] = [:]
    private var random: @Sendable () -> Double
    /// What reconnect delays are waited on (``ParleyConfiguration/clock``).
    private let clock: any WallClock
    private let policy: ReconnectPolicy
    /// Whether the open socket still reaches the server; nil while none is open.
    private var liveness: LivenessWatch?
    private var watchTask: Task<Void, Never>?
    private var pings = 0

    init(transport: any RealtimeTransport, url: URL, headers: [String: String] = [:], pinnedKeys: [PublicKeyPin] = [], policy: ReconnectPolicy, logger: Logger,
         handlers: Handlers, clock: any WallClock = SystemClock(), random: @escaping @Sendable () -> Double = { Double.random(in: -1...1) }) {
        self.clock = clock
        self.transport = transport
        self.url = url
        self.headers = headers
        self.pinnedKeys = pinnedKeys
        self.handlers = handlers
        self.logger = logger
        self.machine = ConnectionMachine(policy: policy)
        self.policy = policy
        self.random = random
    }

    /// The upgrade request's headers: the app's own, then the token (which they never replace).
    private func headers(token: String) -> [String: String] {
        headers.merging(["Authorization": "Bearer \(token)"]) { _, token in token }
    }

    /// A stream of connection states, starting with the current one.
    func states() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self, bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        observers[id] = continuation
        continuation.yield(machine.state)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }

    func start() { perform(machine.start()) }

    func reconnectNow() { perform(machine.reconnectNow()) }

    func stop() {
        perform(machine.stop())
        for observer in observers.values { observer.finish() }
        observers = [:]
    }

    /// Sends a frame on the open socket.
    /// - Throws: ``ParleyError/network(_:)`` when no socket is open.
    func send(_ frame: ClientFrame) async throws {
        guard let channel, machine.state == .connected else { throw ParleyError.network("not connected") }
        try await channel.send(String(decoding: try ParleyJSON.encode(frame), as: UTF8.self))
        liveness?.sent(answered: Self.isAnswered(frame), at: clock.now())
    }

    /// The frames the server always answers (`ack`, `subscribed`, `pong`, or an `error`).
    static func isAnswered(_ frame: ClientFrame) -> Bool {
        switch frame {
        case .send, .subscribe, .ping: true
        case .unsubscribe, .typing, .read: false
        }
    }

    // MARK: Liveness

    /// Checks the open socket every so often on the link's clock (``LivenessWatch``).
    private func watch(_ attempt: Int) {
        watchTask?.cancel()
        let watch = LivenessWatch(answerTimeout: policy.answerTimeout.seconds, idleProbe: policy.idleProbe.seconds, openedAt: clock.now())
        let interval = watch.checkInterval
        guard interval > 0 else { return }
        liveness = watch
        watchTask = Task { [clock] in
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                guard !Task.isCancelled, await self.checkLiveness(attempt) else { return }
            }
        }
    }

    /// False when the watch should stop (the socket is gone or was declared dead).
    private func checkLiveness(_ attempt: Int) async -> Bool {
        guard attempt == generation, let liveness else { return false }
        switch liveness.check(at: clock.now()) {
        case .fine:
            return true
        case .probe:
            pings += 1
            try? await send(.ping(.init(ref: "liveness-\(pings)")))
            return true
        case .dead:
            logger.info("no answer from the server in time; reconnecting", metadata: ["parley.timeout": "\(policy.answerTimeout)"])
            let closing = channel
            generation += 1
            readerTask?.cancel()
            readerTask = nil
            Task { await closing?.close() }
            failed(.network("the server did not answer within \(policy.answerTimeout)"))
            return false
        }
    }


    // MARK: Actions

    private func perform(_ actions: [ConnectionMachine.Action]) {
        for action in actions {
            switch action {
            case .connect:
                generation += 1
                let attempt = generation
                Task { await self.connect(attempt) }
            case .scheduleRetry(let delay):
                retryTask?.cancel()
                retryTask = Task { [clock] in
                    let (seconds, attoseconds) = delay.components
                    try? await clock.sleep(for: Double(seconds) + Double(attoseconds) / 1e18)
                    guard !Task.isCancelled else { return }
                    self.retryFired()
                }
            case .cancelRetry:
                retryTask?.cancel()
                retryTask = nil
            case .closeSocket:
                generation += 1
                let closing = channel
                channel = nil
                stopWatching()
                readerTask?.cancel()
                readerTask = nil
                Task { await closing?.close() }
            case .publish(let state):
                logger.debug("connection state", metadata: ["parley.state": "\(state)"])
                for observer in observers.values { observer.yield(state) }
            }
        }
    }

    private func retryFired() { perform(machine.retryTimerFired()) }

    private func connect(_ attempt: Int) async {
        do {
            var channel: any RealtimeChannel
            do {
                channel = try await transport.connect(to: url, headers: headers(token: try await handlers.token(false)), pinnedKeys: pinnedKeys)
            } catch let error as ParleyError where error.isAuthorizationError {
                // The token may have expired: one try with a fresh one before giving up.
                channel = try await transport.connect(to: url, headers: headers(token: try await handlers.token(true)), pinnedKeys: pinnedKeys)
            }
            guard attempt == generation else {
                await channel.close()
                return
            }
            self.channel = channel
            readerTask = Task { await self.read(channel, attempt: attempt) }
        } catch {
            guard attempt == generation else { return }
            failed(error as? ParleyError ?? .network("\(error)"))
        }
    }

    private func read(_ channel: any RealtimeChannel, attempt: Int) async {
        let decoder = ParleyJSON.makeDecoder()
        var failure = ParleyError.network("the connection closed")
        do {
            for try await text in channel.incoming {
                guard attempt == generation else { return }
                // Any frame, even one this client does not know, shows the socket reaches the server.
                liveness?.heard(at: clock.now())
                guard let frame = try? decoder.decode(ServerFrame.self, from: Data(text.utf8)) else {
                    logger.debug("unknown frame skipped")
                    continue
                }
                if case .ready(let ready) = frame {
                    perform(machine.opened())
                    watch(attempt)
                    await handlers.opened(ready.epoch)
                } else {
                    if case .error(let error) = frame, error.code == "unauthorized", error.ref == nil {
                        failure = .unauthorized(error.message)
                    }
                    await handlers.frame(frame)
                }
            }
        } catch let error as ParleyError {
            failure = error
        } catch {
            failure = .network("\(error)")
        }
        guard attempt == generation else { return }
        // A revoked session is not fatal for a visitor (a new token is fetched); the retry decides.
        failed(failure.isAuthorizationError ? .network(failure.message) : failure)
    }

    private func stopWatching() {
        watchTask?.cancel()
        watchTask = nil
        liveness = nil
    }

    private func failed(_ error: ParleyError) {
        channel = nil
        stopWatching()
        perform(machine.lost(error, random: random()))
        Task { await handlers.lost() }
    }
}
