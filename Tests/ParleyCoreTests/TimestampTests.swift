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
    ])
    func parses(_ text: String, _ seconds: Double) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(date.timeIntervalSince1970 == seconds)
    }

    @Test("refuses what is not an ISO 8601 timestamp", arguments: ["", "yesterday", "2026-11-21", "1795290055125", "21/11/2026 19:40"])
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
