import Foundation
import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// Delivers the push rows of the outbox (decision 0018): one row per event and device, claimed
/// with a lease like the webhooks' (several nodes share them). Each attempt first looks whether
/// the push is still wanted (the device still registered, the visitor has not read the event
/// meanwhile), then sends the content (sealed to the device when it has keys) to APNs or FCM and
/// records the answer. A gone token removes the device; a busy or failing provider is retried by
/// ``PushConfiguration/backoff``; the first attempt's body is kept, so a retry sends the same
/// bytes with the same `apns-id`/collapse id, and a push the device did get before a crash
/// replaces itself instead of showing twice.
struct PushDeliverer: Service {
    let store: any ParleyStore
    let outbound: OutboundClient
    let secrets: SecretBox?
    let configuration: PushConfiguration
    let bell: OutboxBell
    let apps: KnownApps
    let tokens: ProviderTokens
    let clock: any WallClock
    let logger: Logger

    /// Held long enough for one attempt: an OAuth exchange and a send.
    var lease: TimeInterval { outbound.policy.timeout * 3 + 10 }

    func run() async throws {
        var worker = OutboxWorker(
            kind: PushRule.kind, store: store, bell: bell, clock: clock, pollInterval: configuration.pollInterval,
            concurrency: configuration.concurrency, lease: lease, logger: logger, deliver: deliver)
        // Another node's new provider key: this node's commits add its rows from now on.
        worker.onPoll = { [store, apps] in if let fresh = try? await store.pushApps() { apps.add(fresh) } }
        await worker.run()
    }

    /// One attempt at one row, recorded.
    func deliver(_ row: ClaimedOutboxRow) async {
        let started = clock.now()
        let startedMonotonic = ContinuousClock.now
        var body = row.body
        var status: Int?
        var response: String?
        var failure: String?
        var outcome: OutboxOutcome
        do {
            let job = try ParleyJSON.decode(PushJob.self, from: Data(row.payload.utf8))
            switch try await wanted(row, job) {
            case .skip(let reason):
                outcome = .skipped(reason: reason)
            case .send(let device):
                let sent = try await send(row, job, to: device, body: &body)
                status = sent.status
                response = sent.response
                outcome = try await decide(row, sent.verdict, device: sent.device)
            }
        } catch let error as PushDeliveryError where error.isPermanent {
            failure = error.description
            outcome = .failed(disablingTarget: nil)
        } catch {
            failure = String("\(error)".prefix(500))
            outcome = retryOrGiveUp(row)
        }
        let attempt = OutboxAttemptRecord(at: started, status: status, response: response, error: failure, duration: secondsSince(startedMonotonic))
        do {
            try await store.recordOutboxAttempt(row.id, attempt, body: body, outcome: outcome)
        } catch {
            logger.warning("push attempt not recorded", metadata: ["parley.push": "\(row.id)", "error": "\(error)"])
        }
    }

    /// Whether the push is still wanted: to the device still registered for the visitor, or skipped with why.
    private enum Wanted {
        case send(PushDeviceRecord)
        case skip(String)
    }

    private func wanted(_ row: ClaimedOutboxRow, _ job: PushJob) async throws -> Wanted {
        guard let device = try await store.pushDevice(row.target, app: row.appID), device.visitorID == job.visitorID else {
            return .skip("the device was unregistered")
        }
        if job.kind == .callbackOffered {
            // Reading the chat does not answer an offer; answering it (or its expiry) does.
            let request = try await store.conversation(row.conversationID, app: row.appID)?.callback
            return request?.status == .offered ? .send(device) : .skip("the offer was answered or expired before it was sent")
        }
        let read = try await store.readSeq(row.conversationID, participant: .visitor(job.visitorID, name: nil))
        return read >= job.seq ? .skip("the visitor read it before it was due") : .send(device)
    }

    /// What the provider said, and to which device.
    private struct Sent {
        var status: Int
        var response: String
        var verdict: PushVerdict
        var device: PushDeviceRecord
    }

    private func send(_ row: ClaimedOutboxRow, _ job: PushJob, to device: PushDeviceRecord, body: inout String?) async throws -> Sent {
        guard let stored = try await store.pushSettings(app: row.appID) else { throw PushDeliveryError("the app has no push provider", permanent: true) }
        guard let secrets else { throw PushDeliveryError("no secrets key: the provider key cannot be opened", permanent: true) }
        if body == nil { body = try await render(row, job, device: device, settings: stored.settings) }
        let bytes = Data((body ?? "{}").utf8)
        switch device.request.provider {
        case .apns:
            guard let apns = stored.settings.apns, let sealed = stored.sealedAPNsKey else {
                throw PushDeliveryError("the app has no APNs key", permanent: true)
            }
            let tokenKey = "apns|\(row.appID.rawValue)|\(stored.updatedAt.timeIntervalSince1970)"
            let jwt = try await tokens.token(tokenKey) {
                try await ProviderTokens.apnsToken(teamID: apns.teamID, keyID: apns.keyID, privateKeyPEM: try secrets.open(sealed), now: clock.now())
            }
            let base = device.request.environment == .sandbox ? configuration.apnsSandboxURL : configuration.apnsProductionURL
            let url = base.appendingPathComponent("3/device/\(device.request.token)")
            let headers = PushMessages.apnsHeaders(kind: job.kind, topic: apns.topic, pushID: row.messageID,
                                                   expires: row.createdAt.addingTimeInterval(configuration.backoff.retryDuration))
            let answer = try await outbound.post(url, body: bytes, headers: headers + [("authorization", "bearer \(jwt)")])
            let verdict = PushAnswers.apns(status: answer.status, body: answer.body)
            if verdict == .credentialsRefused { tokens.forget(tokenKey) }
            return Sent(status: answer.status, response: Self.text(answer.body), verdict: verdict, device: device)
        case .fcm:
            guard let sealed = stored.sealedFCMAccount else { throw PushDeliveryError("the app has no Firebase service account", permanent: true) }
            let account = try ParleyJSON.decode(FCMServiceAccount.self, from: Data(try secrets.open(sealed).utf8))
            let tokenKey = "fcm|\(row.appID.rawValue)|\(stored.updatedAt.timeIntervalSince1970)"
            let access = try await tokens.token(tokenKey) { try await oauthToken(account) }
            let url = configuration.fcmURL.appendingPathComponent("v1/projects/\(account.projectID)/messages:send")
            let answer = try await outbound.post(url, body: bytes, headers: [("authorization", "Bearer \(access)")])
            let verdict = PushAnswers.fcm(status: answer.status, body: answer.body)
            if verdict == .credentialsRefused { tokens.forget(tokenKey) }
            return Sent(status: answer.status, response: Self.text(answer.body), verdict: verdict, device: device)
        }
    }

    /// The provider's request body: the content (title, preview or not, badge) sealed to the
    /// device when it registered keys.
    private func render(_ row: ClaimedOutboxRow, _ job: PushJob, device: PushDeviceRecord, settings: PushSettings) async throws -> String {
        var appTitle = try await AppSettings(store: store, clock: clock).appearance(app: row.appID).title
        if appTitle == nil { appTitle = try await store.app(row.appID)?.app.name }
        let badge = try await store.unreadCount(visitor: job.visitorID, app: row.appID)
        let content = PushMessages.content(job, conversation: row.conversationID, appTitle: appTitle ?? "", previews: settings.previews, badge: badge,
                                           locale: device.request.locale)
        let keys = try device.request.encryption.map { keys in
            PushEncryptionKeys(publicKey: keys.publicKey, authSecret: try PushService.openAuthSecret(keys.authSecret, with: secrets))
        }
        let envelope = try PushMessages.envelope(content, keys: keys)
        let data: Data
        switch device.request.provider {
        case .apns: data = try PushMessages.apnsBody(content, envelope: envelope)
        case .fcm: data = try PushMessages.fcmBody(content, envelope: envelope, token: device.request.token, pushID: row.messageID)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// An OAuth access token for the service account (RFC 7523 JWT bearer grant).
    private func oauthToken(_ account: FCMServiceAccount) async throws -> ProviderTokens.Token {
        let tokenURI = account.tokenURI ?? FCMServiceAccount.defaultTokenURI
        guard let url = URL(string: tokenURI) else { throw PushDeliveryError("the service account's token_uri is not a URL", permanent: true) }
        let now = clock.now()
        let assertion = try await ProviderTokens.fcmAssertion(account, tokenURI: tokenURI, now: now)
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let answer = try await outbound.post(url, body: Data(form.utf8), contentType: "application/x-www-form-urlencoded", headers: [])
        struct Grant: Decodable {
            var access_token: String
            var expires_in: Double?
        }
        guard answer.status == 200, let grant = try? JSONDecoder().decode(Grant.self, from: answer.body) else {
            throw PushDeliveryError("Google did not grant a token for the service account: HTTP \(answer.status) \(Self.text(answer.body))")
        }
        return ProviderTokens.Token(value: grant.access_token, expires: now.addingTimeInterval(max(60, (grant.expires_in ?? 3600) - 60)))
    }

    /// What follows the provider's verdict.
    private func decide(_ row: ClaimedOutboxRow, _ verdict: PushVerdict, device: PushDeviceRecord) async throws -> OutboxOutcome {
        switch verdict {
        case .delivered:
            return .delivered
        case .tokenGone:
            try await store.removePushToken(device.request.token, provider: device.request.provider, app: row.appID)
            logger.info("push token gone; device removed", metadata: ["parley.push": "\(row.id)"])
            return .failed(disablingTarget: nil)
        case .credentialsRefused, .retry:
            return retryOrGiveUp(row)
        case .failed:
            return .failed(disablingTarget: nil)
        }
    }

    private func retryOrGiveUp(_ row: ClaimedOutboxRow) -> OutboxOutcome {
        if let next = configuration.backoff.nextAttempt(after: row.attempts + 1, at: clock.now(), created: row.createdAt, u: configuration.random()) {
            return .retry(at: next)
        }
        return .failed(disablingTarget: nil)
    }

    private static func text(_ body: Data) -> String { String(decoding: body.prefix(1_000), as: UTF8.self) }
}
