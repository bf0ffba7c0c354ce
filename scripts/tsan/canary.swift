// A data race on purpose, for scripts/tsan.sh: two threads add to one unguarded counter. The script
// compiles and runs this under ThreadSanitizer first and stops unless TSan reports it, so a gate
// that counts 0 reports has shown, in the same run, that it sees a race when there is one.
import Foundation

nonisolated(unsafe) var counter = 0
let done = DispatchSemaphore(value: 0)
for _ in 0..<2 {
    Thread {
        for _ in 0..<1_000 { counter += 1 }
        done.signal()
    }.start()
}
done.wait()
done.wait()
print(counter)
