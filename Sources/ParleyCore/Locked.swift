import Foundation

/// A value behind a lock: `Synchronization.Mutex`'s shape (`withLock`), on a POSIX mutex
/// (`NSLock`), for every target of the package.
///
/// Why not `Mutex`: it needs macOS 15 and iOS 18, which would shut out apps on iOS 17 for a lock;
/// and ThreadSanitizer does not see the ordering its futex gives, so it reported races inside
/// `withLock` that were none. A pthread mutex is understood by both.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: consuming sending Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; keep it short and never await in it.
    package func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
