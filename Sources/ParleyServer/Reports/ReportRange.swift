import Foundation
import ParleyCore

/// The days a report covers, cut in a time zone: each day from its local midnight to the next,
/// so days around a daylight-saving change are 23 or 25 hours long.
struct ReportRange: Sendable, Hashable {
    /// The most days one report covers.
    static let maxDays = 366

    struct Day: Sendable, Hashable {
        /// `YYYY-MM-DD`.
        var date: String
        var start: Date
        var end: Date
    }

    let timeZone: TimeZone
    /// The zone's name as the request gave it (Foundation may name `UTC` `GMT`).
    let timeZoneName: String
    let days: [Day]

    var start: Date { days[0].start }
    var end: Date { days[days.count - 1].end }

    /// The days from `from` to `to`, both included, in `timeZone`.
    /// - Throws: a 400 naming the item at fault.
    init(from: String, to: String, timeZone: TimeZone, named name: String? = nil) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let first = Self.midnight(from, calendar) else { throw APIError.badRequest("from: a day, YYYY-MM-DD") }
        guard let last = Self.midnight(to, calendar) else { throw APIError.badRequest("to: a day, YYYY-MM-DD") }
        guard first <= last else { throw APIError.badRequest("to: must not be before from") }
        var days: [Day] = []
        var start = first
        while start <= last {
            guard days.count < Self.maxDays else { throw APIError.badRequest("to: at most \(Self.maxDays) days after from") }
            guard let end = calendar.date(byAdding: .day, value: 1, to: start) else { throw APIError.badRequest("to: out of range") }
            days.append(Day(date: Self.format(start, calendar), start: start, end: end))
            start = end
        }
        self.timeZone = timeZone
        self.timeZoneName = name ?? timeZone.identifier
        self.days = days
    }

    /// The `days` days that end with the one holding `now`.
    static func last(_ days: Int, before now: Date, in timeZone: TimeZone, named name: String? = nil) throws -> ReportRange {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: now)
        let first = calendar.date(byAdding: .day, value: -(days - 1), to: today) ?? today
        return try ReportRange(from: format(first, calendar), to: format(today, calendar), timeZone: timeZone, named: name)
    }

    /// The index of the day holding `date`; nil outside the range.
    func dayIndex(of date: Date) -> Int? {
        guard date >= start, date < end else { return nil }
        var low = 0, high = days.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if days[middle].start <= date { low = middle } else { high = middle - 1 }
        }
        return low
    }

    private static func midnight(_ text: String, _ calendar: Calendar) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month), (1...31).contains(day),
              year >= 1970, year <= 9999
        else { return nil }
        let components = DateComponents(year: year, month: month, day: day)
        // Refuse days that do not exist (2026-02-30) instead of rolling them over.
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return calendar.startOfDay(for: date)
    }

    private static func format(_ date: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
