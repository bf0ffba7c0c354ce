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
    public static func format(_ date: Date) -> String {
        let millis = millis(date)
        let seconds = millis.quotient(dividingBy: 1000)
        let fraction = millis - seconds * 1000
        let whole = Date(timeIntervalSince1970: Double(seconds))
            .formatted(Date.ISO8601FormatStyle(timeZone: .gmt))  // "…T19:40:55Z"
        return String(whole.dropLast()) + "." + String(format: "%03lld", fraction) + "Z"
    }

    /// Parses an ISO 8601 timestamp with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// Milliseconds since 1970, rounded to the nearest: the unit stores keep.
    public static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The date for a count of milliseconds since 1970.
    public static func date(millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}

extension Int64 {
    /// Division rounding toward negative infinity (dates before 1970 keep a positive fraction).
    fileprivate func quotient(dividingBy divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
