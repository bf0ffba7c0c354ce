import Foundation
import ParleyCore

/// How far a file's upload or download has come.
public struct FileProgress: Hashable, Sendable {
    /// Bytes sent or received so far.
    public var completed: Int64
    /// The file's size.
    public var total: Int64
    /// `completed / total`, 0…1.
    public var fraction: Double { total > 0 ? min(1, Double(completed) / Double(total)) : 1 }

    /// A progress report.
    /// - Parameters:
    ///   - completed: bytes so far.
    ///   - total: the file's size.
    public init(completed: Int64, total: Int64) {
        self.completed = completed
        self.total = total
    }
}

extension ParleyClient {
    // MARK: Files

    /// The app's attachment policy, from the server (and remembered for the device's own checks).
    /// - Throws: ``ParleyError``.
    public func attachmentPolicy() async throws -> AttachmentPolicy {
        let policy = try await http.call(.attachments.policy, token: try await token(renew: false))
        cachedPolicy = policy
        return policy
    }

    /// Sends a file, with an optional caption (masked with the app's rules, as a text is). The file
    /// is checked here with the server's rules
    /// (the app's policy, its type decided from its bytes), copied into the client's storage, and
    /// put in the outbox: from then on it is delivered exactly once, in order with the
    /// conversation's other messages, across lost connections and app restarts, as a text is.
    /// Follow it with ``uploadProgress(of:)``; stop it with ``cancelFile(_:)``.
    /// - Parameters:
    ///   - file: the file to send.
    ///   - name: the name sent with it; default the file's own.
    ///   - caption: text sent with it; default none.
    ///   - conversation: the conversation.
    /// - Returns: the pending message (its ``ChatMessage/outgoingFile`` describes the file).
    /// - Throws: ``ParleyError`` (invalid input) when the policy or the type check refuses it;
    ///   `.storage` when it cannot be copied.
    @discardableResult
    public func sendFile(at file: URL, name: String? = nil, caption: String = "", in conversation: ConversationID) async throws -> ChatMessage {
        let name = name ?? file.lastPathComponent
        // The caption is masked here, as a text is, before it is stored or sent.
        let caption = try masker.masking(caption, field: "caption")
        do {
            try Validation.fileName(name)
            try Validation.caption(caption)
        } catch {
            throw ParleyError.invalidInput(error.description)
        }
        let size = Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)??.int64Value ?? -1)
        guard size >= 0, let handle = try? FileHandle(forReadingFrom: file) else { throw ParleyError.invalidInput("cannot read \(file.lastPathComponent)") }
        let head = (try? handle.read(upToCount: FileType.sniffLength)) ?? Data()
        try? handle.close()
        let type: String
        do {
            type = try FileType.decide(head: Array(head), name: name, declared: nil)
        } catch {
            throw ParleyError.invalidInput(error.message)
        }
        // The last policy read, else the standard one: the server checks again in any case.
        let policy: AttachmentPolicy
        if let cachedPolicy { policy = cachedPolicy } else { policy = (try? await attachmentPolicy()) ?? .standard }
        if let refusal = policy.refusal(type: type, size: size) { throw ParleyError.invalidInput(refusal.message) }

        let id = UUID().uuidString.lowercased()
        let copy = OutgoingFile(storedName: id, name: name, size: size, contentType: type)
        do {
            try FileManager.default.createDirectory(at: outgoingFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(at: file, to: outgoingFolder.appendingPathComponent(id))
            try FileAppender.append(Data(), to: outgoingFolder.appendingPathComponent(id))  // synced before the outbox names it
        } catch {
            throw ParleyError.storage("cannot keep a copy of \(name) to send: \(error.localizedDescription)")
        }
        if snapshots[conversation] == nil { snapshots[conversation] = ConversationSnapshot(id: conversation) }
        let item = OutboxItem(clientMessageID: id, conversationID: conversation, text: caption, createdAt: configuration.clock.now(), file: copy)
        try await perform(outbox.enqueue(item))
        await publish(conversation)
        return ChatMessage(id: id, seq: nil, text: caption, author: .visitor(visitorID ?? VisitorID(rawValue: ""), name: configuration.userName),
                           createdAt: item.createdAt, deliveryState: .pending, isMine: true, outgoingFile: copy)
    }

    /// The progress of a file's upload, in the order the bytes went (when a broken upload starts
    /// again, from its new start); the stream ends when it was delivered, failed or cancelled.
    /// It starts with where the upload stands (0 bytes before it has begun), so a view that
    /// appears in the middle shows the bar at once. A slow observer gets the newest report, not
    /// every one.
    /// - Parameter messageID: the message ``sendFile(at:name:caption:in:)`` returned.
    public func uploadProgress(of messageID: String) -> AsyncStream<FileProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: FileProgress.self, bufferingPolicy: .bufferingNewest(1))
        guard let file = outbox.items.first(where: { $0.clientMessageID == messageID })?.file else {
            continuation.finish()
            return stream
        }
        continuation.yield(uploadFigures[messageID] ?? FileProgress(completed: 0, total: file.size))
        let key = UUID()
        uploadObservers[messageID, default: [:]][key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stopObserving(messageID, key) }
        }
        return stream
    }

    /// Stops sending a file: its upload is abandoned and it leaves the outbox. A file the server
    /// already stored stays sent (its message arrives as usual).
    /// - Parameter messageID: the message ``sendFile(at:name:caption:in:)`` returned.
    public func cancelFile(_ messageID: String) async throws {
        uploads[messageID]?.cancel()
        uploads[messageID] = nil
        let file = outbox.items.first { $0.clientMessageID == messageID }?.file
        try await perform(outbox.discard(messageID))
        if let file { removeOutgoingCopy(file) }
        finishProgress(messageID)
        if let conversation = outbox.items.first(where: { $0.clientMessageID == messageID })?.conversationID { await publish(conversation) }
    }

    /// Downloads a file of a conversation to `destination` (the app's download handler chooses
    /// where). A download that broke off resumes from `destination` + `.part` on the next call;
    /// the file appears at `destination` only once complete and its SHA-256 checked.
    /// - Parameters:
    ///   - attachment: the file, from a message.
    ///   - conversation: its conversation.
    ///   - destination: where the file goes (replaced if there).
    /// - Returns: progress reports; the stream ends when the file is in place, or throws.
    public func download(_ attachment: Attachment, in conversation: ConversationID, to destination: URL) -> AsyncThrowingStream<FileProgress, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.download(attachment, in: conversation, to: destination) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func download(_ attachment: Attachment, in conversation: ConversationID, to destination: URL,
                          report: @escaping @Sendable (FileProgress) -> Void) async throws {
        try await http.fetch(attachment, in: conversation, to: destination, token: try await token(renew: false), report: report)
    }

    // MARK: The outbox's uploads

    /// Where the outbox keeps its copies of files.
    var outgoingFolder: URL {
        let base = (storage as? FileStorage)?.directory ?? configuration.storage.directoryURL
        return base.appendingPathComponent("outbox-files", isDirectory: true)
    }

    func startUpload(_ item: OutboxItem) {
        guard let file = item.file, uploads[item.clientMessageID] == nil else { return }
        let id = item.clientMessageID
        uploads[id] = Task { await self.upload(item, file: file) }
    }

    private func upload(_ item: OutboxItem, file: OutgoingFile) async {
        let id = item.clientMessageID
        let endpoint: Endpoint<Void, SendMessageResponse> = Endpoint<Void, SendMessageResponse>.attachments.upload(item.conversationID)
            .query("name", file.name).query("client_message_id", id).query("caption", item.text.isEmpty ? nil : item.text)
        // The transport reports from its own thread. One stream relays the reports in order (a
        // task per report would not: observers could see the bar go back), keeping only the
        // newest when observers are slower, and all of them are out before the upload ends.
        let (reports, reporter) = AsyncStream.makeStream(of: Int64.self, bufferingPolicy: .bufferingNewest(1))
        let relay = Task { [total = file.size] in
            for await bytes in reports { self.progressed(id, FileProgress(completed: bytes, total: total)) }
        }
        let answer: Result<SendMessageResponse, any Error>
        do {
            answer = .success(try await http.upload(
                endpoint, file: outgoingFolder.appendingPathComponent(file.storedName), contentType: file.contentType,
                token: try await token(renew: false)) { bytes in reporter.yield(bytes) })
        } catch {
            answer = .failure(error)
        }
        reporter.finish()
        await relay.value
        // Cancelled: `cancelFile` already let go of this task and took the file out of the outbox.
        guard !Task.isCancelled else { return }
        // This upload is over: a later `transmit` of the same file (the retry below, or a
        // reconnect meanwhile) must start a new one rather than find this one still registered.
        uploads[id] = nil
        do {
            try await perform(outbox.acknowledged(id, event: try answer.get().event))
            finishProgress(id)
            await publish(item.conversationID)
        } catch {
            let failure = error as? ParleyError ?? .network("\(error)")
            try? await perform(outbox.refused(id, reason: failure.message, isFatal: failure.isFatal))
            if failure.isFatal {
                finishProgress(id)
                await publish(item.conversationID)
                return
            }
            // Not for good (the network, a 5xx): try again after a pause, socket or no socket.
            let delay = configuration.reconnectPolicy.delay(attempt: 3, random: Double.random(in: -1...1))
            try? await configuration.clock.sleep(for: delay.seconds)
            try? await perform(outbox.resend())
        }
    }

    private func progressed(_ id: String, _ progress: FileProgress) {
        uploadFigures[id] = progress
        for continuation in uploadObservers[id]?.values ?? [:].values { continuation.yield(progress) }
    }

    func finishProgress(_ id: String) {
        let observers = uploadObservers.removeValue(forKey: id)
        uploadFigures[id] = nil
        for continuation in observers?.values ?? [:].values { continuation.finish() }
    }

    /// Forgets an observer that stopped listening before its upload ended.
    private func stopObserving(_ id: String, _ key: UUID) {
        uploadObservers[id]?[key] = nil
        if uploadObservers[id]?.isEmpty == true { uploadObservers[id] = nil }
    }

    /// Removes the copies no outbox entry names: an app killed after a delivered file left the
    /// outbox but before its copy was deleted (that order keeps every entry's file), or after a
    /// file was copied but before its entry was stored, would leave them taking space for good.
    func removeUnnamedCopies() {
        let named = Set(outbox.items.compactMap { $0.file?.storedName })
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: outgoingFolder.path) else { return }
        for name in names where !named.contains(name) {
            try? FileManager.default.removeItem(at: outgoingFolder.appendingPathComponent(name))
        }
    }

    func removeOutgoingCopy(_ file: OutgoingFile) {
        try? FileManager.default.removeItem(at: outgoingFolder.appendingPathComponent(file.storedName))
    }
}
