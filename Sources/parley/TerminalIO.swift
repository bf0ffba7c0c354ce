import Foundation

/// Lines typed on stdin, as an async stream (reading blocks, so it runs on its own thread), and
/// lines printed at once (a pipe must see them immediately, not when a buffer fills).
enum TerminalIO {
    /// Every line typed, until end of input.
    static func lines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
            thread.start()
        }
    }

    /// Prints a line and flushes it.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
