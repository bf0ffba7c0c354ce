import Foundation
import Logging
import ParleyCore

// The history a start restores: the conversations' summaries and figures at once, each
// conversation's events when they are needed (docs/decisions/0009-client-storage-journals.md).
extension ParleyClient {
    /// Restores the epoch and every stored conversation. A conversation whose stored events run
    /// without a gap is restored from its figures alone (its last seq is all a resume needs);
    /// events a storage handed over are adopted; a gap is read and cut at once.
    /// - Throws: ``ParleyError`` when storage cannot be read.
    func restoreHistory() throws {
        var index = try storage.loadHistoryIndex()
        epoch = index.epoch
        for (id, entry) in index.conversations {
            // Moved out of the index, so the snapshot adopts the array instead of copying it.
            if let handed = index.events.removeValue(forKey: id) {
                snapshots[id] = restored(id, summary: entry.summary, events: handed)
            } else if entry.isGapFree {
                snapshots[id] = ConversationSnapshot(id: id, stored: entry)
            } else {
                snapshots[id] = restored(id, summary: entry.summary, events: try storage.loadEvents(of: id))
            }
        }
    }

    /// Reads a conversation's stored events when they are not read yet, and puts them before the
    /// events received since. When storage holds a gap, or lost events received since (a failed
    /// write), what follows the gap-free run is forgotten and fetched again.
    func readStoredEvents(of id: ConversationID) async {
        guard var snapshot = snapshots[id], !snapshot.isLoaded else { return }
        let stored: [ConversationEvent]
        do {
            stored = try storage.loadEvents(of: id)
        } catch {
            // Nothing read: the whole conversation is fetched again (storage ignores what it holds).
            logger.warning("history not read", metadata: ["parley.conversation": "\(id)", "error": "\(error)"])
            snapshot.reset()
            snapshots[id] = snapshot
            await subscribe(id)
            return
        }
        let isWhole = snapshot.adoptStoredEvents(stored)
        snapshots[id] = snapshot
        let isStoredGapFree = stored.enumerated().allSatisfy { $0.element.seq == Int64($0.offset) + 1 }
        if !isWhole || !isStoredGapFree { rewriteStoredEvents(of: id, as: snapshot.events) }
        if !isWhole { await subscribe(id) }
    }

    /// Reads the stored events when the unread count cannot be told without them.
    func readStoredEventsIfNeeded(of id: ConversationID) async {
        if snapshots[id]?.needsStoredEvents == true { await readStoredEvents(of: id) }
    }

    /// A snapshot of stored events; a gap (a history write failed once) is cut in storage too,
    /// keeping what precedes it: the resume fetches the rest.
    private func restored(_ id: ConversationID, summary: Conversation?, events stored: [ConversationEvent]) -> ConversationSnapshot {
        let snapshot = ConversationSnapshot(id: id, summary: summary, events: stored)
        if snapshot.events.count < stored.count { rewriteStoredEvents(of: id, as: snapshot.events) }
        return snapshot
    }

    private func rewriteStoredEvents(of id: ConversationID, as kept: [ConversationEvent]) {
        storeHistory { storage in
            try storage.resetEvents(of: id)
            try storage.appendEvents(kept, to: id)
        }
    }
}
