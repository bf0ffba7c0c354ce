import Foundation

/// A queue's opening hours: a weekly schedule of local wall-clock intervals in an IANA time zone,
/// plus holidays closed all day.
///
/// On the wire: `{"time_zone": "Europe/Berlin", "weekly": {"monday": [{"start": 540, "end": 1020}]},
/// "holidays": ["2026-12-25"]}`. A weekday missing from `weekly` is closed.
///
/// The schedule follows the wall clock: an interval 09:00–17:00 is open while local clocks read
/// 09:00 to 16:59, whatever the UTC offset that day. Across a DST change this means: a boundary that
/// falls in the skipped hour takes effect when the clock jumps (02:30 on a spring-forward night acts
/// at 03:00), and a repeated hour is open or closed both times it is lived.
public struct BusinessHours: Hashable, Sendable, Codable {
    /// Open from `start` up to, not including, `end`, in minutes from local midnight (0…1440).
    public struct Interval: Hashable, Sendable, Codable {
        public var start: Int
        /// Up to 1440 (24:00, the end of the day).
        public var end: Int
        /// Creates an interval from minutes after local midnight.
        public init(start: Int, end: Int) {
            self.start = start
            self.end = end
        }
        /// An interval from whole hours: `.hours(9, 17)` is 09:00–17:00.
        public static func hours(_ start: Int, _ end: Int) -> Interval { Interval(start: start * 60, end: end * 60) }
        func contains(minute: Int) -> Bool { start <= minute && minute < end }
    }

    /// Open or closed at a moment.
    public enum Status: Hashable, Sendable {
        /// Open until the given moment; nil when no closing was found within a year and a week.
        case open(until: Date?)
        /// Closed; opens next at the given moment, nil when no opening was found within a year and a week.
        case closed(nextOpening: Date?)
    }

    /// An IANA time zone identifier such as `Europe/Berlin` (UTC when unknown; ``checkDefinition()`` refuses that).
    public var timeZone: String
    /// The open intervals of each weekday, sorted, not overlapping (touching is fine).
    public var weekly: [Weekday: [Interval]]
    /// Local dates closed all day.
    public var holidays: [LocalDate]

    /// Creates business hours.
    public init(timeZone: String, weekly: [Weekday: [Interval]], holidays: [LocalDate] = []) {
        self.timeZone = timeZone
        self.weekly = weekly
        self.holidays = holidays
    }

    /// Whether the schedule is open at `date`, and until when, or when it opens next.
    /// Looks ahead at most ``lookAheadDays`` days.
    public func status(at date: Date) -> Status {
        let calendar = ScheduleClock(hours: self)
        let now = Int(date.timeIntervalSince1970.rounded(.down))
        if calendar.isOpen(at: now) {
            return .open(until: calendar.firstInstant(after: now, where: { !calendar.isOpen(at: $0) }, boundaries: \.end)
                .map { Date(timeIntervalSince1970: TimeInterval($0)) })
        }
        return .closed(nextOpening: calendar.firstInstant(after: now, where: calendar.isOpen, boundaries: \.start)
            .map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    /// How far ``status(at:)`` looks for the next change, in days: 372.
    public static let lookAheadDays = 372

    enum CodingKeys: String, CodingKey { case timeZone = "time_zone", weekly, holidays }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timeZone = try container.decode(String.self, forKey: .timeZone)
        weekly = try container.decodeIfPresent([Weekday: [Interval]].self, forKey: .weekly) ?? [:]
        holidays = try container.decodeIfPresent([LocalDate].self, forKey: .holidays) ?? []
    }
}

/// The wall clock of one schedule: local minutes and days from instants and back, in whole seconds.
struct ScheduleClock {
    let zone: TimeZone
    let weekly: [Weekday: [BusinessHours.Interval]]
    let holidays: Set<LocalDate>

    init(hours: BusinessHours) {
        zone = TimeZone(identifier: hours.timeZone) ?? TimeZone(secondsFromGMT: 0)!
        weekly = hours.weekly
        holidays = Set(hours.holidays)
    }

    func offset(_ instant: Int) -> Int { zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))) }

    /// Seconds since 1970-01-01 00:00 on the local wall clock.
    func wall(_ instant: Int) -> Int { instant + offset(instant) }

    func intervals(onDay day: Int) -> [BusinessHours.Interval] {
        let date = LocalDate(daysSinceEpoch: day)
        return holidays.contains(date) ? [] : weekly[date.weekday] ?? []
    }

    func isOpen(at instant: Int) -> Bool {
        let wall = wall(instant)
        let day = wall.floorDivided(by: 86_400)
        let minute = (wall - day * 86_400) / 60
        return intervals(onDay: day).contains { $0.contains(minute: minute) }
    }

    /// Every instant whose wall clock reads `wall`: one, two in a repeated hour, none in a skipped one.
    func instants(ofWall wall: Int) -> [Int] {
        let offsets = Set([offset(wall - 86_400), offset(wall), offset(wall + 86_400)])
        return offsets.map { wall - $0 }.filter { offset($0) == wall - $0 }.sorted()
    }

    /// The first instant whose wall clock reads `wall` or later: for a skipped wall time, the jump.
    func firstInstant(atOrAfterWall wall: Int) -> Int {
        if let first = instants(ofWall: wall).first { return first }
        let offsets = [offset(wall - 86_400), offset(wall), offset(wall + 86_400)]
        var low = wall - offsets.max()!, high = wall - offsets.min()!
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if self.wall(middle) >= wall { high = middle } else { low = middle }
        }
        return high
    }

    /// The instants in `start...end` where the UTC offset changes (at most one is looked for per day).
    func offsetChanges(from start: Int, to end: Int) -> [Int] {
        let before = offset(start)
        guard offset(end) != before else { return [] }
        var low = start, high = end
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(middle) == before { low = middle } else { high = middle }
        }
        return [high]
    }

    /// The first instant after `now` that satisfies `condition`, day by day.
    ///
    /// Openness can only change where the wall clock reaches an interval boundary or the UTC offset
    /// changes, so those are the only candidates looked at; days are scanned in order, so the first
    /// day with a match holds the answer.
    func firstInstant(after now: Int, where condition: (Int) -> Bool, boundaries: KeyPath<BusinessHours.Interval, Int>) -> Int? {
        let firstDay = wall(now).floorDivided(by: 86_400)
        for day in firstDay...(firstDay + BusinessHours.lookAheadDays) {
            let dayStart = firstInstant(atOrAfterWall: day * 86_400)
            let dayEnd = firstInstant(atOrAfterWall: (day + 1) * 86_400)
            var candidates = offsetChanges(from: dayStart, to: dayEnd) + [dayStart]
            for interval in intervals(onDay: day) {
                let wall = day * 86_400 + interval[keyPath: boundaries] * 60
                let exact = instants(ofWall: wall)
                candidates += exact.isEmpty ? [firstInstant(atOrAfterWall: wall)] : exact
            }
            if let match = candidates.filter({ $0 > now && condition($0) }).min() { return match }
        }
        return nil
    }
}

extension Int {
    /// Division rounding toward negative infinity (days before 1970 are negative).
    func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
