import Foundation

extension BusinessHours {
    /// Checks a schedule an admin posted, and throws every problem at once.
    ///
    /// The time zone is a known IANA identifier; each interval lies in 0…1440 with `start < end`;
    /// a day's intervals are sorted and do not overlap (touching is fine) and number at most
    /// ``Limits/maxIntervalsPerDay``; there are at most ``Limits/maxHolidays`` holidays, none twice.
    /// - Throws: ``DefinitionError`` with paths such as `weekly.monday[1]` and `time_zone`.
    public func checkDefinition() throws(DefinitionError) {
        var problems: [DefinitionError.Problem] = []
        if TimeZone(identifier: timeZone) == nil {
            problems.append(.init(path: "time_zone", message: "\(timeZone) is not an IANA time zone such as Europe/Berlin"))
        }
        for weekday in Weekday.allCases {
            let intervals = weekly[weekday] ?? []
            let path = "weekly.\(weekday.rawValue)"
            if intervals.count > Limits.maxIntervalsPerDay {
                problems.append(.init(path: path, message: "at most \(Limits.maxIntervalsPerDay) intervals a day"))
            }
            for (index, interval) in intervals.enumerated() {
                if interval.start < 0 || interval.end > 1_440 || interval.start >= interval.end {
                    problems.append(.init(path: "\(path)[\(index)]", message: "use minutes with 0 ≤ start < end ≤ 1440"))
                } else if index > 0, intervals[index - 1].end > interval.start {
                    problems.append(.init(path: "\(path)[\(index)]", message: "starts before the previous interval ends"))
                }
            }
        }
        if holidays.count > Limits.maxHolidays {
            problems.append(.init(path: "holidays", message: "at most \(Limits.maxHolidays) holidays"))
        }
        if Set(holidays).count != holidays.count {
            problems.append(.init(path: "holidays", message: "a date is listed twice"))
        }
        if !problems.isEmpty { throw DefinitionError(problems: problems) }
    }
}
