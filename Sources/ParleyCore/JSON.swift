import Foundation

/// The JSON coders every part of Parley uses, so that dates and key order are the same everywhere.
///
/// Dates are ISO 8601 in UTC with milliseconds (`2026-11-21T19:40:55.123Z`); keys are written in
/// snake_case by each type's own `CodingKeys`, never by a key strategy (which mangles `ID`).
public enum ParleyJSON {
    /// A new encoder with Parley's settings (sorted keys keep fixtures and logs stable).
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        return encoder
    }

    /// A new decoder with Parley's settings.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }

    /// Encodes a value to bytes with Parley's settings.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try makeEncoder().encode(value)
    }

    /// Decodes a value from bytes with Parley's settings.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try makeDecoder().decode(type, from: data)
    }
}

/// Formatting of wire timestamps: ISO 8601, UTC, millisecond precision.
///
/// Dates are rounded to the nearest millisecond with integer arithmetic, so that text → Date → text
/// and stored milliseconds → Date → text always give back the same string (most millisecond values
/// are not exact in binary floating point; truncating would lose one).
public enum Timestamp {
    /// Formats a date as `yyyy-MM-ddTHH:mm:ss.SSSZ`.
    ///
    /// Plain integer arithmetic on the proleptic Gregorian calendar: every event on the wire and in
    /// the stores carries a timestamp, and Foundation's formatters cost microseconds each.
    public static func format(_ date: Date) -> String {
        let millis = millis(date)
        let seconds = millis.quotient(dividingBy: 1000)
        let fraction = Int(millis - seconds * 1000)
        let days = seconds.quotient(dividingBy: 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CivilDate.from(daysSince1970: days)
        guard (0...9999).contains(year) else {
            // Outside four-digit years ISO 8601 needs a sign and more digits: leave those to Foundation.
            let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
            return String(whole.dropLast()) + "." + String(format: "%03d", fraction) + "Z"
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var value = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor))
                value %= divisor
                divisor /= 10
            }
        }
        digits(Int(year), 4); bytes.append(UInt8(ascii: "-"))
        digits(month, 2); bytes.append(UInt8(ascii: "-"))
        digits(day, 2); bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2); bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2); bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2); bytes.append(UInt8(ascii: "."))
        digits(fraction, 3); bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses an RFC 3339 timestamp: `yyyy-MM-ddTHH:mm:ss`, optional fractional seconds (any number
    /// of digits, rounded to the nearest millisecond), then `Z` or an offset `±HH:mm`. `T` and `Z`
    /// may be lower case.
    ///
    /// Strict, on the proleptic Gregorian calendar, by hand: every field must be in range (no
    /// 25:00, no 29 February 2023), nothing may follow, and the instant must fall in the years
    /// 0000–9999 in UTC, so what ``format(_:)`` writes of it parses back to the same instant.
    public static func parse(_ text: String) -> Date? {
        parseMillis(text).map(date(millis:))
    }

    /// The earliest and latest instants ``parse(_:)`` accepts: 0000-01-01T00:00:00.000Z and
    /// 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    static let parsableMillis: ClosedRange<Int64> =
        (CivilDate.daysSince1970(year: 0, month: 1, day: 1) * 86_400_000)...(CivilDate.daysSince1970(year: 10_000, month: 1, day: 1) * 86_400_000 - 1)

    /// Milliseconds since 1970 for an RFC 3339 timestamp (see ``parse(_:)``); nil otherwise.
    static func parseMillis(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count >= 20, bytes.count <= 64 else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                guard start + count <= bytes.count else { return nil }
                var value = 0
                for index in start..<(start + count) {
                    let byte = bytes[index]
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                return value
            }
            func byte(_ index: Int, is characters: Unicode.Scalar...) -> Bool {
                index < bytes.count && characters.contains { bytes[index] == UInt8(ascii: $0) }
            }
            guard byte(4, is: "-"), byte(7, is: "-"), byte(10, is: "T", "t"), byte(13, is: ":"), byte(16, is: ":"),
                  let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                  let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                  (1...12).contains(month), day >= 1, day <= CivilDate.days(inMonth: month, year: year),
                  hour < 24, minute < 60, second < 60
            else { return nil }
            var index = 19
            var millis = 0
            if byte(index, is: ".") {
                // Up to nine digits; the first four decide the rounding to milliseconds.
                index += 1
                let first = index
                var scaled = 0
                var digits = 0
                while index < bytes.count, let digit = number(index, 1) {
                    if digits < 4 { scaled = scaled * 10 + digit }
                    digits += 1
                    index += 1
                }
                guard digits >= 1, digits <= 9, index > first else { return nil }
                if digits < 4 { for _ in digits..<4 { scaled *= 10 } }
                millis = (scaled + 5) / 10
            }
            var offsetMinutes = 0
            if byte(index, is: "Z", "z") {
                index += 1
            } else if byte(index, is: "+", "-") {
                guard byte(index + 3, is: ":"), let offsetHours = number(index + 1, 2), let offsetMinute = number(index + 4, 2),
                      offsetHours < 24, offsetMinute < 60
                else { return nil }
                offsetMinutes = (offsetHours * 60 + offsetMinute) * (byte(index, is: "-") ? -1 : 1)
                index += 6
            } else {
                return nil
            }
            guard index == bytes.count else { return nil }
            let days = CivilDate.daysSince1970(year: year, month: month, day: day)
            let local = (days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(millis)
            let instant = local - Int64(offsetMinutes) * 60_000
            return parsableMillis.contains(instant) ? instant : nil
        }
    }

    /// Milliseconds since 1970, rounded to the nearest: the unit stores keep.
    public static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The date for a count of milliseconds since 1970.
    public static func date(millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}

/// Days ↔ proleptic Gregorian dates, by Howard Hinnant's well-known civil-date algorithms
/// (http://howardhinnant.github.io/date_algorithms.html).
enum CivilDate {
    static func from(daysSince1970 days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = z.quotient(dividingBy: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let year = Int64(month <= 2 ? year - 1 : year)
        let era = year.quotient(dividingBy: 400)
        let yearOfEra = year - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (dates before 1970 keep a positive fraction).
    func quotient(dividingBy divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
