import ParleyCore
import Foundation
import Logging

/// Every line logged through ``logger(_:)``, at every level down to trace, kept in memory: for
/// tests that read what a server would have written to its log.
public final class CapturedLog: Sendable {
    private let lines = Locked<[String]>([])

    public init() {}

    /// A logger at trace level whose lines (label, level, message, metadata) are kept here.
    public func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { label in Handler(label: label, log: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Everything logged so far, one line a record.
    public var text: String { lines.withLock { $0.joined(separator: "\n") } }

    /// How many records were logged.
    public var count: Int { lines.withLock { $0.count } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let label: String
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let error = event.error.map { " error=\($0)" } ?? ""
            log.append("\(label) \(event.level) \(event.message) \(fields)\(error) \(event.source) \(event.file):\(event.line)")
        }
    }
}
