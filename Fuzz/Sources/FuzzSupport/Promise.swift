/// Stops the process when a promise the code documents does not hold for this input.
///
/// libFuzzer treats the trap like any crash: it prints the stack, writes the input to a
/// `crash-<sha1>` file and exits non-zero. The message says which promise broke and with what.
/// - Parameters:
///   - condition: what the code promises.
///   - message: the promise and the values involved, built only when it fails.
public func promise(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() {
        fatalError("broken promise: \(message())", file: file, line: line)
    }
}

/// Stops the process for a case the code promises never happens.
public func brokenPromise(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("broken promise: \(message)", file: file, line: line)
}
