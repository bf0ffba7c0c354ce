import Foundation
import Hummingbird
import Logging
import NIOCore
import ParleyCore
import ParleyStore

/// Files in conversations: the app's policy, uploads (streamed to disk, typed from their bytes,
/// scanned, stored by hash, then committed as a message) and downloads (authorised as reads).
struct AttachmentService: Sendable {
    let store: any ParleyStore
    let conversations: ConversationService
    /// Scans every upload when set (parleyd `--clamav`); an upload it cannot scan is refused.
    let scanner: (any MalwareScanner)?
    /// The largest file this server takes, whatever an app's policy says.
    let serverLimit: Int64
    let clock: any WallClock
    let logger: Logger

    static let settingsKey = "attachments"

    /// The app's policy (the standard one, capped by the server, when never set).
    func policy(app: AppID) async throws -> AttachmentPolicy {
        var policy = AttachmentPolicy.standard
        if let text = try await store.setting(Self.settingsKey, app: app) {
            policy = try ParleyJSON.decode(AttachmentPolicy.self, from: Data(text.utf8))
        }
        policy.maxBytes = min(policy.maxBytes, serverLimit)
        return policy
    }

    /// Checks and stores the app's policy. - Throws: 400 naming the field; 404 for an unknown app.
    func setPolicy(_ policy: AttachmentPolicy, app: AppID) async throws {
        do {
            try policy.check(serverLimit: serverLimit)
        } catch {
            throw APIError.badRequest(error.description)
        }
        try await store.setSetting(Self.settingsKey, app: app, value: String(decoding: try ParleyJSON.encode(policy), as: UTF8.self), at: clock.now())
    }

    /// What the sender says of an upload, from the request's query and headers.
    struct Upload: Sendable {
        var name: String
        var clientMessageID: String
        var caption: String
        var declaredType: String?
        var declaredLength: Int64?
    }

    /// Takes an upload into a conversation: nothing is stored unless all of it is accepted, and the
    /// message is committed only once its bytes are durable.
    /// - Throws: 400 (bad name, caption, id; an empty file), 404 (not the caller's conversation),
    ///   409 (an agent not assigned), 413 (over the policy's size), 415 (a refused type, or a name
    ///   or declared type the bytes contradict), 422 `malware_detected`, 503 when the scanner is down.
    func upload<Body: AsyncSequence>(_ upload: Upload, into id: ConversationID, body: Body, by caller: Caller,
                                     context: some RequestContext) async throws -> ConversationCommit where Body.Element == ByteBuffer {
        try Validation.clientMessageID(upload.clientMessageID)
        try Validation.fileName(upload.name)
        try Validation.caption(upload.caption)
        let conversation = try await conversations.visible(id, to: caller)
        if case .agent(let agent) = caller, conversation.agentID != agent.agentID || conversation.state != .assigned {
            throw APIError.conflict("invalid_state", "only the assigned agent can write into this conversation")
        }
        let policy = try await policy(app: conversation.appID)
        if let length = upload.declaredLength, let refusal = policy.refusal(size: length) { throw Self.error(refusal) }
        if !policy.isEnabled { throw Self.error(.disabled) }

        let staging = store.blobs.stagingDirectory
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        let staged = staging.appendingPathComponent(UUID().uuidString.lowercased() + ".part")
        // Whatever happens below, the staged file goes: moved into the blob store, or removed.
        defer { try? FileManager.default.removeItem(at: staged) }
        let meter = UploadMeter(limit: policy.maxBytes)
        do {
            try await FileIO().writeFile(contents: MeteredBody(base: body, meter: meter), path: staged.path, context: context)
        } catch is UploadMeter.TooLarge {
            throw Self.error(.tooLarge(limit: policy.maxBytes))
        }
        if meter.size == 0 { throw Self.error(.empty) }
        let type: String
        do {
            type = try FileType.decide(head: meter.head, name: upload.name, declared: upload.declaredType)
        } catch {
            throw APIError(status: .unsupportedMediaType, code: "type_mismatch", message: error.message)
        }
        if let refusal = policy.refusal(type: type, size: meter.size) { throw Self.error(refusal) }
        let sha256 = meter.sha256
        if let scanner {
            let finding: String?
            do {
                finding = try await scanner.scan(staged)
            } catch {
                logger.error("the malware scanner could not be asked; upload refused", metadata: ["parley.conversation": "\(id)"])
                throw APIError(status: .serviceUnavailable, code: "scanner_unavailable", message: "files cannot be checked right now; try again later")
            }
            if let finding {
                logger.warning("malware refused", metadata: [
                    "parley.conversation": "\(id)", "parley.sha256": "\(sha256)", "parley.finding": "\(finding)"])
                throw APIError(status: .unprocessableContent, code: "malware_detected", message: "the file was refused by the malware scanner")
            }
        }
        try await store.blobs.put(stagedFile: staged, sha256: sha256, size: meter.size, at: clock.now())
        let attachment = Attachment(id: .generate(at: clock.now()), name: upload.name, contentType: type, size: meter.size, sha256: sha256)
        return try await conversations.send(id, clientMessageID: upload.clientMessageID, text: upload.caption, attachment: attachment, by: caller)
    }

    /// An attachment the caller may read; 404 for anyone else, 410 once retention removed it.
    func download(_ attachment: AttachmentID, of id: ConversationID, by caller: Caller) async throws -> AttachmentRecord {
        let conversation = try await conversations.visible(id, to: caller)
        guard let record = try await store.attachment(attachment, conversation: id, app: conversation.appID) else {
            throw APIError.notFound("attachment not found")
        }
        guard record.deletedAt == nil else { throw APIError(status: .gone, code: "attachment_removed", message: "the file was removed under the app's retention") }
        return record
    }

    static func error(_ refusal: AttachmentPolicy.Refusal) -> APIError {
        switch refusal {
        case .disabled: APIError(status: .forbidden, code: "attachments_disabled", message: refusal.message)
        case .tooLarge: APIError.tooLarge(refusal.message)
        case .empty: APIError.badRequest(refusal.message)
        case .typeNotAllowed: APIError(status: .unsupportedMediaType, code: "type_not_allowed", message: refusal.message)
        }
    }
}
