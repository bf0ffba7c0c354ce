import Foundation
import ParleyCore
import ParleyStore

/// Administration of apps, queues and agents, shared by the admin HTTP API and `parleyd admin`.
public struct AdminService: Sendable {
    let store: any ParleyStore
    let hasher: PasswordHasher
    let clock: any WallClock
    /// Told when an agent changes, so routing sees new queues, capacity or a disabled account;
    /// the flag says the agent's sessions were ended (new password, disabled), so open sockets close.
    let agentChanged: @Sendable (Agent, _ sessionsEnded: Bool) async -> Void

    /// Creates the service over a store.
    /// - Parameter clock: where creation times come from; default the system's clock.
    public init(
        store: any ParleyStore, hasher: PasswordHasher, clock: any WallClock = SystemClock(),
        agentChanged: @escaping @Sendable (Agent, Bool) async -> Void = { _, _ in }
    ) {
        self.store = store
        self.hasher = hasher
        self.clock = clock
        self.agentChanged = agentChanged
    }

    /// A new secret key: `sk_` and 32 random bytes, base64url.
    static func makeSecretKey() -> String {
        "sk_" + OpaqueTokens.make(prefix: "k").dropFirst(2)
    }

    /// Creates an app with a fresh secret key.
    public func createApp(name: String) async throws -> AppCredentials {
        try Validation.shortText(name, field: "name", maxLength: 100, required: true)
        let app = App(id: .generate(), name: name, createdAt: clock.now())
        let key = Self.makeSecretKey()
        try await store.insertApp(app, secretKey: key)
        return AppCredentials(app: app, secretKey: key)
    }

    /// Replaces an app's secret key; the old one stops working at once.
    public func rotateKey(app id: AppID) async throws -> AppCredentials {
        guard let stored = try await store.app(id) else { throw APIError.notFound("app not found") }
        let key = Self.makeSecretKey()
        try await store.updateApp(stored.app, secretKey: key)
        return AppCredentials(app: stored.app, secretKey: key)
    }

    /// Renames an app.
    public func renameApp(_ id: AppID, name: String) async throws -> App {
        try Validation.shortText(name, field: "name", maxLength: 100, required: true)
        guard var app = try await store.app(id)?.app else { throw APIError.notFound("app not found") }
        app.name = name
        try await store.updateApp(app, secretKey: nil)
        return app
    }

    public func createQueue(app: AppID, name: String) async throws -> Queue {
        try Validation.shortText(name, field: "name", maxLength: 100, required: true)
        guard try await store.app(app) != nil else { throw APIError.notFound("app not found") }
        let queue = Queue(id: .generate(), appID: app, name: name, createdAt: clock.now())
        try await store.insertQueue(queue)
        return queue
    }

    public func renameQueue(_ id: QueueID, app: AppID, name: String) async throws -> Queue {
        try Validation.shortText(name, field: "name", maxLength: 100, required: true)
        guard var queue = try await store.queues(app: app).first(where: { $0.id == id }) else { throw APIError.notFound("queue not found") }
        queue.name = name
        try await store.updateQueue(queue)
        return queue
    }

    /// Creates an agent. Without a password one is generated and returned once.
    /// Without queues the agent serves every queue of the app.
    public func createAgent(app: AppID, _ request: CreateAgentRequest) async throws -> CreatedAgent {
        try Validation.shortText(request.name, field: "name", maxLength: 100, required: true)
        try Validation.email(request.email)
        if let password = request.password { try Self.checkPassword(password) }
        let capacity = request.capacity ?? 3
        guard (0...100).contains(capacity) else { throw APIError.badRequest("capacity: between 0 and 100") }
        guard try await store.app(app) != nil else { throw APIError.notFound("app not found") }
        let appQueues = try await store.queues(app: app).map(\.id)
        let queueIDs = request.queueIDs ?? appQueues
        try Self.checkQueues(queueIDs, of: appQueues)
        let generated = request.password == nil ? OpaqueTokens.password() : nil
        let agent = Agent(
            id: .generate(), appID: app, name: request.name, email: request.email.lowercased(), role: request.role ?? .agent,
            queueIDs: queueIDs, capacity: capacity, availability: .offline, isDisabled: false, createdAt: clock.now())
        try await store.insertAgent(agent, passwordHash: hasher.hash(request.password ?? generated!))
        await agentChanged(agent, false)
        return CreatedAgent(agent: agent, generatedPassword: generated)
    }

    /// Changes an agent. A new password or disabling ends every session of the agent.
    public func updateAgent(_ id: AgentID, app: AppID, _ request: UpdateAgentRequest) async throws -> Agent {
        guard var agent = try await store.agent(id)?.agent, agent.appID == app else { throw APIError.notFound("agent not found") }
        if let name = request.name {
            try Validation.shortText(name, field: "name", maxLength: 100, required: true)
            agent.name = name
        }
        if let email = request.email {
            try Validation.email(email)
            agent.email = email.lowercased()
        }
        if let role = request.role { agent.role = role }
        if let queueIDs = request.queueIDs {
            try Self.checkQueues(queueIDs, of: try await store.queues(app: app).map(\.id))
            agent.queueIDs = queueIDs
        }
        if let capacity = request.capacity {
            guard (0...100).contains(capacity) else { throw APIError.badRequest("capacity: between 0 and 100") }
            agent.capacity = capacity
        }
        if let isDisabled = request.isDisabled { agent.isDisabled = isDisabled }
        var hash: String?
        if let password = request.password {
            try Self.checkPassword(password)
            hash = try await hasher.hash(password)
        }
        try await store.updateAgent(agent, passwordHash: hash)
        let endsSessions = hash != nil || request.isDisabled == true
        if endsSessions { try await store.deleteSessions(agent: id) }
        await agentChanged(agent, endsSessions)
        return agent
    }

    /// Gives an agent a new generated password, returned once, and ends every session they had.
    public func resetPassword(_ id: AgentID, app: AppID) async throws -> CreatedAgent {
        let password = OpaqueTokens.password()
        let agent = try await updateAgent(id, app: app, UpdateAgentRequest(password: password))
        return CreatedAgent(agent: agent, generatedPassword: password)
    }

    /// Every queue an agent serves must be a queue of the agent's own app.
    static func checkQueues(_ queueIDs: [QueueID], of appQueues: [QueueID]) throws {
        if let stranger = queueIDs.first(where: { !appQueues.contains($0) }) {
            throw APIError.badRequest("queue_ids: \(stranger) is not a queue of this app")
        }
        if Set(queueIDs).count != queueIDs.count { throw APIError.badRequest("queue_ids: a queue is listed twice") }
    }

    static func checkPassword(_ password: String) throws {
        guard (8...200).contains(password.count) else { throw APIError.badRequest("password: 8 to 200 characters") }
    }

    /// On an empty database: a demo app, queue and admin agent with a generated password.
    /// Returns nil when the database already has an app.
    public func bootstrapDemo() async throws -> DemoSetup? {
        guard try await store.apps().isEmpty else { return nil }
        let credentials = try await createApp(name: "Demo")
        let queue = try await createQueue(app: credentials.app.id, name: "Support")
        let agent = try await createAgent(app: credentials.app.id, CreateAgentRequest(
            name: "Demo Agent", email: "agent@demo.parley", role: .admin, queueIDs: [queue.id], capacity: 5))
        return DemoSetup(app: credentials, queue: queue, agent: agent.agent, password: agent.generatedPassword ?? "")
    }
}

/// What ``AdminService/bootstrapDemo()`` made, for parleyd to print once.
public struct DemoSetup: Sendable {
    public var app: AppCredentials
    public var queue: Queue
    public var agent: Agent
    public var password: String
}
