import Foundation
import Hummingbird
import ParleyCore

/// A report's query string, checked: `from` and `to` (days, both included), `time_zone` (IANA,
/// default UTC). Without `from` and `to`, the last 30 days up to today.
struct ReportRequest: Sendable, Hashable {
    /// The days a report covers when the request names none.
    static let defaultDays = 30

    var range: ReportRange

    init(_ request: Request, now: Date) throws {
        let query = request.uri.queryParameters
        let zoneName = query.get("time_zone") ?? "UTC"
        guard let timeZone = TimeZone(identifier: zoneName) else { throw APIError.badRequest("time_zone: an IANA time zone, such as Europe/Berlin") }
        switch (query.get("from"), query.get("to")) {
        case (let from?, let to?):
            range = try ReportRange(from: from, to: to, timeZone: timeZone, named: zoneName)
        case (nil, nil):
            range = try ReportRange.last(Self.defaultDays, before: now, in: timeZone, named: zoneName)
        case (nil, _?):
            throw APIError.badRequest("from: give both from and to, or neither")
        case (_?, nil):
            throw APIError.badRequest("to: give both from and to, or neither")
        }
    }
}
