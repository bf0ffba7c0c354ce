import Foundation
import ParleyCore
import Testing

/// A UTC moment, written plainly: `utc(2026, 3, 29, 1, 0)`.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
    let days = LocalDate(year: year, month: month, day: day)!.daysSinceEpoch
    return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60))
}

@Suite("Business hours")
struct BusinessHoursTests {
    static let weekdays: [Weekday: [BusinessHours.Interval]] = [
        .monday: [.hours(9, 17)], .tuesday: [.hours(9, 17)], .wednesday: [.hours(9, 17)], .thursday: [.hours(9, 17)], .friday: [.hours(9, 17)],
    ]

    @Test func zoneData_isInstalled() {
        #expect(TimeZone(identifier: "Europe/Berlin") != nil)
        #expect(TimeZone(identifier: "America/New_York") != nil)
    }

    @Test func officeHours_inWinter() {
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: Self.weekdays)
        // Monday 2026-01-05, Berlin is UTC+1.
        #expect(hours.status(at: utc(2026, 1, 5, 7, 59)) == .closed(nextOpening: utc(2026, 1, 5, 8)))
        #expect(hours.status(at: utc(2026, 1, 5, 8)) == .open(until: utc(2026, 1, 5, 16)))
        #expect(hours.status(at: utc(2026, 1, 5, 15, 59)) == .open(until: utc(2026, 1, 5, 16)))
        #expect(hours.status(at: utc(2026, 1, 5, 16)) == .closed(nextOpening: utc(2026, 1, 6, 8)))
        // Friday evening waits for Monday.
        #expect(hours.status(at: utc(2026, 1, 9, 17)) == .closed(nextOpening: utc(2026, 1, 12, 8)))
    }

    @Test func berlin_springForward_weekendToMonday_usesSummerTime() {
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: Self.weekdays)
        // Friday 27 March 2026 is still CET; Monday 30 March is CEST (UTC+2): 09:00 is 07:00Z.
        #expect(hours.status(at: utc(2026, 3, 27, 17)) == .closed(nextOpening: utc(2026, 3, 30, 7)))
    }

    @Test func berlin_springForward_boundaryInTheSkippedHour_actsAtTheJump() {
        // Sunday 29 March 2026: 02:00 CET (01:00Z) jumps to 03:00 CEST; 02:30 never happens.
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: [.sunday: [.init(start: 150, end: 240)]])
        #expect(hours.status(at: utc(2026, 3, 29, 0, 30)) == .closed(nextOpening: utc(2026, 3, 29, 1)))
        #expect(hours.status(at: utc(2026, 3, 29, 1)) == .open(until: utc(2026, 3, 29, 2)))
    }

    @Test func berlin_springForward_intervalInsideTheSkippedHour_neverOpens() {
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: [.sunday: [.init(start: 130, end: 160)]])
        // Next Sunday, 5 April, 02:10 CEST is 00:10Z.
        #expect(hours.status(at: utc(2026, 3, 29, 0, 30)) == .closed(nextOpening: utc(2026, 4, 5, 0, 10)))
    }

    @Test func berlin_overnightAcrossMidnightAndTheJump() {
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: [.saturday: [.hours(20, 24)], .sunday: [.hours(0, 10)]])
        // Saturday 21:00 CET → Sunday 10:00 CEST (08:00Z): the night is one hour shorter.
        #expect(hours.status(at: utc(2026, 3, 28, 20)) == .open(until: utc(2026, 3, 29, 8)))
    }

    @Test func berlin_fallBack_repeatedHour_opensTwice() {
        // Sunday 25 October 2026: 03:00 CEST (01:00Z) falls back to 02:00 CET; 02:00–02:59 is lived twice.
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: [.sunday: [.init(start: 120, end: 150)]])
        #expect(hours.status(at: utc(2026, 10, 25, 0, 10)) == .open(until: utc(2026, 10, 25, 0, 30)))
        #expect(hours.status(at: utc(2026, 10, 25, 0, 30)) == .closed(nextOpening: utc(2026, 10, 25, 1)))
        #expect(hours.status(at: utc(2026, 10, 25, 1)) == .open(until: utc(2026, 10, 25, 1, 30)))
        // The next Sunday, 1 November, 02:00 CET is 01:00Z.
        #expect(hours.status(at: utc(2026, 10, 25, 1, 30)) == .closed(nextOpening: utc(2026, 11, 1, 1)))
    }

    @Test func berlin_fallBack_clockJumpingBackLeavesAnInterval() {
        // Open 02:30–04:00: at 02:59 CEST the clock goes back to 02:00 CET, before the opening.
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: [.sunday: [.init(start: 150, end: 240)]])
        #expect(hours.status(at: utc(2026, 10, 25, 0, 45)) == .open(until: utc(2026, 10, 25, 1)))
        #expect(hours.status(at: utc(2026, 10, 25, 1)) == .closed(nextOpening: utc(2026, 10, 25, 1, 30)))
        #expect(hours.status(at: utc(2026, 10, 25, 1, 30)) == .open(until: utc(2026, 10, 25, 3)))
    }

    @Test func newYork_springForward() {
        // Sunday 8 March 2026: 02:00 EST (07:00Z) jumps to 03:00 EDT, skipping the end at 02:30.
        let night = BusinessHours(timeZone: "America/New_York", weekly: [.sunday: [.init(start: 60, end: 150)]])
        #expect(night.status(at: utc(2026, 3, 8, 6, 30)) == .open(until: utc(2026, 3, 8, 7)))
        let office = BusinessHours(timeZone: "America/New_York", weekly: Self.weekdays)
        // Friday 6 March 18:00 EST → Monday 9 March 09:00 EDT (13:00Z).
        #expect(office.status(at: utc(2026, 3, 6, 23)) == .closed(nextOpening: utc(2026, 3, 9, 13)))
    }

    @Test func newYork_fallBack_repeatedHour() {
        // Sunday 1 November 2026: 02:00 EDT (06:00Z) falls back to 01:00 EST; 01:00–01:59 twice.
        let hours = BusinessHours(timeZone: "America/New_York", weekly: [.sunday: [.init(start: 60, end: 90)]])
        #expect(hours.status(at: utc(2026, 11, 1, 5, 15)) == .open(until: utc(2026, 11, 1, 5, 30)))
        #expect(hours.status(at: utc(2026, 11, 1, 5, 30)) == .closed(nextOpening: utc(2026, 11, 1, 6)))
        #expect(hours.status(at: utc(2026, 11, 1, 6, 10)) == .open(until: utc(2026, 11, 1, 6, 30)))
    }

    @Test func holidays_closeTheWholeDay() {
        let christmas = LocalDate(year: 2026, month: 12, day: 25)!
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: Self.weekdays, holidays: [christmas])
        // Thursday 24 December after work; Friday is a holiday; Monday 28 at 09:00 CET.
        #expect(hours.status(at: utc(2026, 12, 24, 16)) == .closed(nextOpening: utc(2026, 12, 28, 8)))
        #expect(hours.status(at: utc(2026, 12, 25, 10)) == .closed(nextOpening: utc(2026, 12, 28, 8)))
    }

    @Test func holiday_endsAnIntervalThatRunsToMidnight() {
        let hours = BusinessHours(timeZone: "UTC", weekly: [.thursday: [.hours(20, 24)], .friday: [.hours(0, 24)]],
                                  holidays: [LocalDate(year: 2026, month: 12, day: 25)!])
        #expect(hours.status(at: utc(2026, 12, 24, 21)) == .open(until: utc(2026, 12, 25, 0)))
        #expect(hours.status(at: utc(2026, 12, 17, 21)) == .open(until: utc(2026, 12, 19, 0)))
    }

    @Test func touchingIntervals_areOneOpening() {
        let hours = BusinessHours(timeZone: "UTC", weekly: [.monday: [.hours(9, 12), .hours(12, 13)]])
        #expect(hours.status(at: utc(2026, 1, 5, 10)) == .open(until: utc(2026, 1, 5, 13)))
    }

    @Test func alwaysOpen_andNeverOpen() {
        let always = BusinessHours(timeZone: "Europe/Berlin", weekly: Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, [BusinessHours.Interval.hours(0, 24)]) }))
        #expect(always.status(at: utc(2026, 3, 29, 1)) == .open(until: nil))
        let never = BusinessHours(timeZone: "Europe/Berlin", weekly: [:])
        #expect(never.status(at: utc(2026, 3, 29, 1)) == .closed(nextOpening: nil))
    }

    @Test func json_roundTrips_withWeekdaysAsKeys() throws {
        let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: [.monday: [.init(start: 540, end: 1_020)]],
                                  holidays: [LocalDate(year: 2026, month: 12, day: 25)!])
        let json = String(decoding: try ParleyJSON.encode(hours), as: UTF8.self)
        #expect(json == #"{"holidays":["2026-12-25"],"time_zone":"Europe/Berlin","weekly":{"monday":[{"end":1020,"start":540}]}}"#)
        #expect(try ParleyJSON.decode(BusinessHours.self, from: Data(json.utf8)) == hours)
        let minimal = try ParleyJSON.decode(BusinessHours.self, from: Data(#"{"time_zone": "UTC"}"#.utf8))
        #expect(minimal == BusinessHours(timeZone: "UTC", weekly: [:]))
        #expect(throws: DecodingError.self) {
            try ParleyJSON.decode(BusinessHours.self, from: Data(#"{"time_zone": "UTC", "holidays": ["2026-02-29"]}"#.utf8))
        }
    }

    static func paths(_ hours: BusinessHours) -> [String] {
        do {
            try hours.checkDefinition()
            return []
        } catch {
            return error.problems.map(\.path)
        }
    }

    @Test func definition_checksZoneIntervalsAndHolidays() {
        #expect(Self.paths(BusinessHours(timeZone: "Europe/Berlin", weekly: Self.weekdays)).isEmpty)
        #expect(Self.paths(BusinessHours(timeZone: "Mars/Olympus", weekly: [:])) == ["time_zone"])
        let bad = BusinessHours(timeZone: "UTC", weekly: [
            .monday: [.hours(9, 12), .hours(11, 14)],
            .tuesday: [.init(start: -1, end: 60), .init(start: 600, end: 600), .init(start: 1_400, end: 1_441)],
            .wednesday: [.hours(0, 24)],
            .thursday: (0...Limits.maxIntervalsPerDay).map { .init(start: $0 * 60, end: $0 * 60 + 30) },
        ], holidays: [LocalDate(year: 2026, month: 1, day: 1)!, LocalDate(year: 2026, month: 1, day: 1)!])
        #expect(Self.paths(bad) == ["weekly.monday[1]", "weekly.tuesday[0]", "weekly.tuesday[1]", "weekly.tuesday[2]", "weekly.thursday", "holidays"])
    }
}

@Suite("Local dates")
struct LocalDateTests {
    @Test(arguments: [("1970-01-01", Weekday.thursday), ("2000-02-29", .tuesday), ("2026-03-29", .sunday), ("2026-12-25", .friday), ("1969-12-31", .wednesday)])
    func parsesAndKnowsItsWeekday(text: String, weekday: Weekday) throws {
        let date = try #require(LocalDate(text))
        #expect(date.description == text)
        #expect(date.weekday == weekday)
    }

    @Test(arguments: ["2026-02-29", "1900-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "20260101", "2026-01-32", "abcd-01-01", ""])
    func refusesNonDates(text: String) {
        #expect(LocalDate(text) == nil)
    }

    @Test func daysSinceEpoch_roundTripsOverFourHundredYears() {
        for days in stride(from: -150_000, through: 150_000, by: 7) {
            let date = LocalDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
            #expect(LocalDate(year: date.year, month: date.month, day: date.day) == date)
        }
        #expect(LocalDate(year: 2024, month: 2, day: 29)!.next == LocalDate(year: 2024, month: 3, day: 1))
        #expect(LocalDate(year: 2025, month: 12, day: 31)! < LocalDate(year: 2026, month: 1, day: 1)!)
    }
}
