import Foundation
import ParleyCore

/// A stored attachment: the file's description and where it belongs.
public struct AttachmentRecord: Hashable, Sendable {
    public var attachment: Attachment
    public var conversationID: ConversationID
    public var appID: AppID
    /// The seq of the message event that carries it.
    public var seq: Int64
    public var createdAt: Date
    /// When retention removed its bytes; nil while they are kept.
    public var deletedAt: Date?

    /// Creates a record.
    /// - Parameters:
    ///   - attachment: the file's description.
    ///   - conversationID: its conversation.
    ///   - appID: the conversation's app.
    ///   - seq: the seq of the message that carries it.
    ///   - createdAt: when it was sent.
    ///   - deletedAt: when its bytes were removed, if they were.
    public init(attachment: Attachment, conversationID: ConversationID, appID: AppID, seq: Int64, createdAt: Date, deletedAt: Date? = nil) {
        self.attachment = attachment
        self.conversationID = conversationID
        self.appID = appID
        self.seq = seq
        self.createdAt = createdAt
        self.deletedAt = deletedAt
    }
}

/// Attachments: their rows (written with their message, in ``ConversationStore/commit(_:effects:)``)
/// and their bytes (``BlobStore``).
public protocol AttachmentStore: Sendable {
    /// Where the files' bytes are kept: files beside the SQLite database, or chunks in PostgreSQL
    /// (so that every node serves every file).
    var blobs: any BlobStore { get }

    /// An attachment of a conversation of an app; nil for anything else (another conversation's,
    /// another app's, none at all).
    func attachment(_ id: AttachmentID, conversation: ConversationID, app: AppID) async throws -> AttachmentRecord?

    /// The kept attachments of an app sent before `date`, oldest first, at most `limit` (retention).
    func attachments(sentBefore date: Date, app: AppID, limit: Int) async throws -> [AttachmentRecord]

    /// Marks an attachment's bytes removed and says whether another kept attachment still has the
    /// same bytes (then the blob stays).
    /// - Returns: true when no kept attachment refers to the blob any more.
    func markAttachmentDeleted(_ id: AttachmentID, app: AppID, at: Date) async throws -> Bool

    /// Whether a kept attachment has these bytes: a blob none names is left over (an upload whose
    /// commit never came, or bytes retention removed while a sweep raced it) and is swept.
    func isBlobReferenced(sha256: String) async throws -> Bool
}

/// Content-addressed file bytes: a blob is named by the SHA-256 of its bytes, written once, and
/// complete before anything refers to it.
public protocol BlobStore: Sendable {
    /// A directory on this node's disk where uploads are written while they arrive.
    var stagingDirectory: URL { get }

    /// Makes a complete staged file durable under its hash and removes the staged file. Storing
    /// bytes that are already stored only marks them stored now, so that a sweep running at the
    /// same moment leaves them to the message about to name them.
    /// - Parameters:
    ///   - stagedFile: the upload, complete, in ``stagingDirectory``.
    ///   - sha256: the SHA-256 of its bytes, lowercase hex.
    ///   - size: its size in bytes.
    ///   - date: when it is stored (the server's clock), which the sweep of leftovers compares.
    func put(stagedFile: URL, sha256: String, size: Int64, at date: Date) async throws

    /// A blob's bytes within `range`, in chunks read as they are asked for (a slow reader holds
    /// back the reading: a large file never piles up in memory).
    /// - Parameters:
    ///   - sha256: the blob's hash.
    ///   - range: the byte range wanted, within the blob's size.
    func read(sha256: String, range: Range<Int64>) -> BlobChunks

    /// Whether the blob is stored.
    func contains(sha256: String) async throws -> Bool

    /// Removes a blob stored before `date` (one stored again since stays); removing one that is
    /// not there changes nothing.
    func delete(sha256: String, storedBefore date: Date) async throws

    /// The hashes of blobs stored before `date` (for the sweep of leftovers).
    func hashes(storedBefore date: Date) async throws -> [String]
}

/// A blob's bytes, a chunk per `next()`: each chunk is read only when it is asked for.
public struct BlobChunks: AsyncSequence, Sendable {
    public typealias Element = Data
    /// Makes the reader of one iteration: each call gives the next chunk, nil at the end.
    let makeReader: @Sendable () -> @Sendable () async throws -> Data?

    /// Chunks from a reader made for each iteration.
    /// - Parameter makeReader: makes a function that returns the next chunk, nil at the end.
    public init(_ makeReader: @escaping @Sendable () -> @Sendable () async throws -> Data?) {
        self.makeReader = makeReader
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let read: @Sendable () async throws -> Data?
        public mutating func next() async throws -> Data? { try await read() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(read: makeReader()) }
}
