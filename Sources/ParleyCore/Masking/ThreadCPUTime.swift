#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The CPU time the calling thread has used: a time limit on work done in one call that a busy
/// machine (other threads taking the cores) does not shorten.
package enum ThreadCPUTime {
    /// The thread's CPU time so far, or nil where the system cannot tell.
    package static func now() -> Duration? {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return nil }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        #else
        return nil
        #endif
    }
}
