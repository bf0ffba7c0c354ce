import Foundation

extension Endpoint {
    /// `/v1/admin/apps/:app/reports…`: how an app's team is doing (admins only).
    public static var reports: ReportEndpoints { ReportEndpoints() }
}

/// The report endpoints (docs/protocol.md "Reports"). Each takes `from` and `to` (days,
/// `YYYY-MM-DD`, both included, at most 366 days) and `time_zone` (IANA, UTC by default).
public struct ReportEndpoints: Sendable {
    /// `GET /v1/admin/apps/:app/reports?from=&to=&time_zone=`: conversations per day, first
    /// response and resolution times, ratings; per queue and per agent.
    public var summary: Endpoint<Void, TeamReport> { .init(.get, "/v1/admin/apps/:app/reports") }
    /// `GET /v1/admin/apps/:app/reports/ratings?from=&to=&time_zone=&cursor=&limit=`: the ratings
    /// with their comments, newest first.
    public var ratings: Endpoint<Void, ReportRatingList> { .init(.get, "/v1/admin/apps/:app/reports/ratings") }
    /// `GET /v1/admin/apps/:app/reports/conversations.csv?from=&to=&time_zone=`: one CSV row per
    /// conversation, with the figures the report is computed from (RFC 4180, UTF-8).
    public var csv: Endpoint<Void, String> { .init(.get, "/v1/admin/apps/:app/reports/conversations.csv") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] { [summary.erased, ratings.erased, csv.erased] }
}
