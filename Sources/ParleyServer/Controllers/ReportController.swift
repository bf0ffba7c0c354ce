import Foundation
import Hummingbird
import NIOCore
import ParleyCore
import ParleyStore

/// `/v1/admin/apps/{app}/reports…`: the team's figures for the app's admins (and the operator).
struct ReportController {
    let reports: ReportService
    let store: any ParleyStore
    let clock: any WallClock

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.reports.summary) { request, context in
            let app = try await context.administeredApp(in: store)
            return JSONResponse(try await reports.summary(app: app, range: try ReportRequest(request, now: clock.now()).range))
        }
        router.on(.reports.ratings) { request, context in
            let app = try await context.administeredApp(in: store)
            let range = try ReportRequest(request, now: clock.now()).range
            let offset = try request.uri.queryParameters.get("cursor").map { text in
                guard let cursor = ReportRatingsCursor(text) else { throw APIError.badRequest("cursor: not one this list gave") }
                return cursor.offset
            } ?? 0
            let limit = try request.integer("limit", default: 50, range: 1...ReportService.maxRatingsLimit)
            return JSONResponse(try await reports.ratings(app: app, range: range, offset: offset, limit: limit))
        }
        router.on(.reports.csv) { request, context -> Response in
            let app = try await context.administeredApp(in: store)
            let range = try ReportRequest(request, now: clock.now()).range
            let document = try await reports.csv(app: app, range: range)
            var headers = HTTPFields()
            headers[.contentType] = "text/csv; charset=utf-8; header=present"
            headers[.contentDisposition] = "attachment; filename=\"conversations-\(range.days[0].date)-to-\(range.days[range.days.count - 1].date).csv\""
            headers[.cacheControl] = "no-store"
            headers[.init("X-Content-Type-Options")!] = "nosniff"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: document)))
        }
    }
}
