import ParleyCore

/// The apps a commit rule concerns (those with an enabled webhook endpoint; those with a push
/// provider key), as this node knows them: read at start and at every poll of the rule's worker,
/// and added to at once when an admin sets one up here. Another node's change is seen within one
/// poll interval (decision 0016). It only grows: an app that dropped its endpoints or keys costs
/// its commits one statement that finds nothing, until a restart, and a read racing a local insert
/// can never drop it.
final class KnownApps: Sendable {
    private let apps = Locked<Set<AppID>>([])

    func contains(_ app: AppID) -> Bool { apps.withLock { $0.contains(app) } }
    func insert(_ app: AppID) { _ = apps.withLock { $0.insert(app) } }
    func add(_ fresh: Set<AppID>) { apps.withLock { $0.formUnion(fresh) } }
}
