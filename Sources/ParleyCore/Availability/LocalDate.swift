/// A calendar date with no time and no zone, such as a holiday: `2026-12-25` on the wire.
public struct LocalDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let year: Int
    /// 1…12.
    public let month: Int
    /// 1…31, valid for the month.
    public let day: Int

    /// A date in the proleptic Gregorian calendar, or nil when there is no such day (`2026-02-29`).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        let date = LocalDate(daysSinceEpoch: LocalDate.days(year: year, month: month, day: day))
        guard date.year == year, date.month == month, date.day == day else { return nil }
        self = date
    }

    /// The date `days` after 1970-01-01 (negative: before).
    public init(daysSinceEpoch days: Int) {
        // Howard Hinnant's civil_from_days: exact for every day, no calendar object needed.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int { LocalDate.days(year: year, month: month, day: day) }

    /// The day of the week.
    public var weekday: Weekday { Weekday.allCases[((daysSinceEpoch + 3) % 7 + 7) % 7] }

    /// The next day.
    public var next: LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + 1) }

    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Reads `YYYY-MM-DD`, or returns nil.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let date = LocalDate(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a date like 2026-12-25")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A day of the week, Monday first (ISO 8601).
public enum Weekday: String, Hashable, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday
}
