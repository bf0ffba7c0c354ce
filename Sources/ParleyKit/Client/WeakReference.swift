import ParleyCore

/// A weak reference that can be handed to closures made before its target exists (an actor's
/// init builds a helper that must call back into the actor).
final class WeakReference<Target: AnyObject & Sendable>: Sendable {
    private struct Box: @unchecked Sendable {
        // @unchecked: a weak reference to a Sendable object, only read and written under the mutex.
        weak var target: Target?
    }

    private let box = Locked(Box())

    init() {}

    var value: Target? {
        get { box.withLock { $0.target } }
        set { box.withLock { $0.target = newValue } }
    }
}
