import Foundation
import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// Removes what attachments leave behind, every ``interval``: files older than their app's
/// `retention_days` (their rows are marked, their messages stay), then blobs no kept attachment
/// names and that were not stored within ``graceTime`` (left by uploads whose commit never came,
/// or freed by retention). Every node may run it: each step is safe to repeat and to race.
struct AttachmentJanitor: Service {
    let store: any ParleyStore
    let attachments: AttachmentService
    let interval: TimeInterval
    /// How long an unnamed blob is left alone: an upload between storing its bytes and committing
    /// its message has this long.
    let graceTime: TimeInterval
    let clock: any WallClock
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await sweep()
                } catch {
                    logger.warning("attachment sweep failed; tried again later", metadata: ["error": "\(error)"])
                }
                try? await clock.sleep(for: interval)
            }
        }
    }

    /// Removes staged uploads older than the grace time: a process killed mid-upload leaves its
    /// partial file behind. Staged files are this node's, written just now, so their age is read
    /// by the system's time, as the file system writes it.
    private func removeAbandonedUploads() -> Int {
        let folder = store.blobs.stagingDirectory
        let manager = FileManager.default
        let cutoff = Date().addingTimeInterval(-graceTime)
        var removed = 0
        for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(".part") {
            let file = folder.appendingPathComponent(name)
            let modified = (try? manager.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? .distantFuture
            if modified < cutoff, (try? manager.removeItem(at: file)) != nil { removed += 1 }
        }
        return removed
    }

    /// One pass: retention, then leftover blobs and abandoned uploads.
    /// - Returns: how many files retention removed and how many blobs were deleted.
    @discardableResult
    func sweep() async throws -> (expired: Int, blobsDeleted: Int) {
        let now = clock.now()
        var expired = 0
        for app in try await store.apps() {
            guard let days = try await attachments.policy(app: app.id).retentionDays else { continue }
            let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
            while true {
                let batch = try await store.attachments(sentBefore: cutoff, app: app.id, limit: 200)
                if batch.isEmpty { break }
                for record in batch {
                    _ = try await store.markAttachmentDeleted(record.attachment.id, app: app.id, at: now)
                    expired += 1
                }
            }
        }
        var deleted = 0
        let settled = now.addingTimeInterval(-graceTime)
        for sha256 in try await store.blobs.hashes(storedBefore: settled) where try await !store.isBlobReferenced(sha256: sha256) {
            try await store.blobs.delete(sha256: sha256, storedBefore: settled)
            deleted += 1
        }
        deleted += removeAbandonedUploads()
        if expired > 0 || deleted > 0 {
            logger.info("attachments swept", metadata: ["parley.expired": "\(expired)", "parley.blobs_deleted": "\(deleted)"])
        }
        return (expired, deleted)
    }
}
