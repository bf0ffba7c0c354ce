import Foundation
import ParleyCore
import Testing

@Suite("Timestamps")
struct TimestampTests {
    /// A value with one date, to go through the coders the way every wire type does.
    struct Stamped: Codable, Hashable {
        var at: Date
    }

    @Test("formats UTC with exactly three fractional digits", arguments: [
        (Date(timeIntervalSince1970: 0), "1970-01-01T00:00:00.000Z"),
        (Sample.openTime, "2026-11-21T19:40:55.125Z"),
        (Sample.assignTime, "2026-11-21T19:40:58.750Z"),
        (Sample.setupTime, "2026-01-05T10:00:00.500Z"),
        (Date(timeIntervalSince1970: 1_795_290_055), "2026-11-21T19:40:55.000Z"),
    ])
    func formats(_ date: Date, _ text: String) {
        #expect(Timestamp.format(date) == text)
    }

    @Test("parses with or without fractional seconds, and with an offset", arguments: [
        ("2026-11-21T19:40:55.125Z", 1_795_290_055.125),
        ("2026-11-21T19:40:55Z", 1_795_290_055),
        ("2026-11-21T20:40:55.125+01:00", 1_795_290_055.125),
        ("1970-01-01T00:00:00.000Z", 0),
        ("2026-11-21t19:40:55.125z", 1_795_290_055.125),
        ("2026-11-21T19:40:55.1254999Z", 1_795_290_055.125),
        ("2026-11-21T19:40:55.1255Z", 1_795_290_055.126),
        ("2026-11-21T19:40:55.9996Z", 1_795_290_056),
        ("2026-11-21T14:10:55.125-05:30", 1_795_290_055.125),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("1500-06-01T00:00:00Z", -14_818_723_200),
        ("1500-06-01T00:00:00+00:00", -14_818_723_200),
    ])
    func parses(_ text: String, _ seconds: Double) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(date.timeIntervalSince1970 == seconds)
    }

    @Test("refuses what is not an ISO 8601 timestamp, and every field out of range (found by fuzzing)", arguments: [
        "", "yesterday", "2026-11-21", "1795290055125", "21/11/2026 19:40",
        "2023-02-22T91:00:25Z", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T19:60:00Z",
        "2026-11-21T19:40:60Z", "2026-11-21T19:40:55.Z", "2026-11-21T19:40:55.1234567891Z", "2026-11-21T19:40:55Zjunk",
        "2026-11-21T19:40:55+1:00", "2026-11-21T19:40:55+24:00", "2026-11-21T19:40:55", "2026-11-21 19:40:55Z",
        "0000-01-01T00:00:00+01:00", "+2026-11-21T19:40:55Z",
    ])
    func refuses(_ text: String) throws {
        #expect(Timestamp.parse(text) == nil)
        let json = Data(#"{"at": "\#(text)"}"#.utf8)
        #expect(throws: DecodingError.self) { try ParleyJSON.makeDecoder().decode(Stamped.self, from: json) }
    }

    @Test("round-trips through the coders with milliseconds", arguments: [
        "1970-01-01T00:00:00.000Z", "2026-11-21T19:40:55.125Z", "2026-11-21T19:40:55.500Z", "2026-11-21T23:59:59.875Z",
        "2026-01-05T10:00:00.250Z",
    ])
    func roundTrips(_ text: String) throws {
        let json = #"{"at":"\#(text)"}"#
        let decoded = try ParleyJSON.makeDecoder().decode(Stamped.self, from: Data(json.utf8))
        #expect(String(decoding: try ParleyJSON.makeEncoder().encode(decoded), as: UTF8.self) == json)
    }

    @Test("a time without milliseconds gains .000 on the way out")
    func addsMilliseconds() throws {
        let decoded = try ParleyJSON.makeDecoder().decode(Stamped.self, from: Data(#"{"at":"2026-11-21T19:40:55Z"}"#.utf8))
        #expect(String(decoding: try ParleyJSON.makeEncoder().encode(decoded), as: UTF8.self) == #"{"at":"2026-11-21T19:40:55.000Z"}"#)
    }

    @Test("millis and date(millis:) are inverse")
    func millisInverse() {
        for millis in Int64(1_795_290_055_000)..<1_795_290_056_000 {
            #expect(Timestamp.millis(Timestamp.date(millis: millis)) == millis)
        }
        #expect(Timestamp.millis(Sample.openTime) == 1_795_290_055_125)
    }

    /// Every millisecond of a second must survive text → Date → text, and stored millis → Date → text.
    ///
    /// Most millisecond values are not exact in binary (`….002Z` parses to `….0019999…`), so
    /// formatting must round, not truncate, or stores would serve times 1 ms early.
    @Test("every millisecond round-trips through text and through stored millis")
    func everyMillisecondRoundTrips() {
        do {
            var failures: [String] = []
            for millis in 0..<1000 {
                let text = "2026-11-21T19:40:55." + String(format: "%03d", millis) + "Z"
                if let parsed = Timestamp.parse(text), Timestamp.format(parsed) != text {
                    failures.append("text \(text) → \(Timestamp.format(parsed))")
                }
                let stored = Timestamp.date(millis: 1_795_290_055_000 + Int64(millis))
                if Timestamp.format(stored) != text {
                    failures.append("millis \(text) → \(Timestamp.format(stored))")
                }
            }
            let count = failures.count
            #expect(count == 0, "\(count) of 2000 round trips changed, first: \(failures.prefix(3))")
        }
    }
}

/// The hand-written formatter and parser against Foundation's, over dates far apart and near edges.
@Suite("Timestamps agree with Foundation")
struct TimestampFoundationAgreementTests {
    static func foundationFormat(_ millis: Int64) -> String {
        let seconds = Int64((Double(millis) / 1000).rounded(.down))
        let fraction = millis - seconds * 1000
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        return String(whole.dropLast()) + "." + String(format: "%03lld", fraction) + "Z"
    }

    /// From 1583 on: before the Gregorian reform Foundation switches to the Julian calendar, while
    /// ISO 8601 (and this formatter) stay proleptic Gregorian. Chat timestamps never go there.
    @Test("format and parse match Foundation from 1583 to 9999, leap days and all")
    func agreesWithFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [Int64] = [
            0, -1, 1, 951_782_400_000, 951_868_799_999, 4_107_542_399_999, -12_212_553_600_000, 253_402_300_799_999,
            1_709_164_800_000, 1_709_251_199_999, -2_203_891_200_000,  // 2024-02-29, 1900-03-01
        ]
        for _ in 0..<3000 { samples.append(Int64.random(in: -12_212_553_600_000...253_402_300_799_999, using: &generator)) }
        for millis in samples {
            let date = Timestamp.date(millis: millis)
            let text = Timestamp.format(date)
            #expect(text == Self.foundationFormat(millis), "millis \(millis)")
            let parsed = try #require(Timestamp.parse(text), "\(text)")
            #expect(Timestamp.millis(parsed) == millis, "\(text)")
            let foundation = try #require(try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            #expect(Timestamp.millis(foundation) == millis, "Foundation reads \(text) differently")
        }
    }

    /// Foundation is lenient with some (a 29th of February in a common year, 24:00, rolled over to
    /// the next day) and reads years before 1582 on the Julian calendar; the parser is strict and
    /// Gregorian, so what it accepts, ``Timestamp/format(_:)`` writes back to the same instant.
    @Test("strict where Foundation is lenient", arguments: [
        ("2026-02-29T10:00:00.000Z", false), ("2024-02-29T10:00:00.000Z", true), ("2026-13-01T10:00:00.000Z", false),
        ("2026-11-21T24:00:00.000Z", false), ("2026-11-21T19:40:55.1234Z", true), ("2026-11-21t19:40:55.123Z", true),
        ("2026-11-21T19:40:55,123Z", false), ("+2026-11-21T19:40:55Z", false),
    ])
    func edges(_ text: String, _ valid: Bool) throws {
        #expect((Timestamp.parse(text) != nil) == valid)
        if let parsed = Timestamp.parse(text) {
            #expect(Timestamp.parse(Timestamp.format(parsed)) == Date(timeIntervalSince1970: Double(Timestamp.millis(parsed)) / 1000))
        }
    }
}
