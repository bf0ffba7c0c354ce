import Foundation
import ParleyCore
import Testing

@Suite("Availability report")
struct AvailabilityReportTests {
    static let office = BusinessHours(timeZone: "UTC", weekly: [.monday: [.hours(9, 17)]])

    @Test func evaluate_closedHoursWin_thenAgents_thenOpenWithTheEstimate() {
        let mondayNoon = utc(2026, 1, 5, 12), mondayNight = utc(2026, 1, 5, 20)
        #expect(AvailabilityReport.evaluate(hours: Self.office, at: mondayNight, agentsOnline: 3, estimatedWaitSeconds: 60)
            == AvailabilityReport(status: .closed(nextOpening: utc(2026, 1, 12, 9))))
        #expect(AvailabilityReport.evaluate(hours: Self.office, at: mondayNoon, agentsOnline: 0, estimatedWaitSeconds: 60)
            == AvailabilityReport(status: .noAgentOnline))
        let open = AvailabilityReport.evaluate(hours: Self.office, at: mondayNoon, agentsOnline: 1, estimatedWaitSeconds: 60)
        #expect(open == AvailabilityReport(status: .open, estimatedWaitSeconds: 60))
        #expect(open.isOpen)
        #expect(AvailabilityReport.evaluate(hours: nil, at: mondayNight, agentsOnline: 1, estimatedWaitSeconds: nil).isOpen)
    }

    @Test(arguments: [
        (AvailabilityReport(status: .open, estimatedWaitSeconds: 90), #"{"estimated_wait_seconds":90,"status":"open"}"#),
        (AvailabilityReport(status: .open), #"{"status":"open"}"#),
        (AvailabilityReport(status: .closed(nextOpening: Date(timeIntervalSince1970: 1_774_854_000))), #"{"next_opening":"2026-03-30T07:00:00.000Z","status":"closed"}"#),
        (AvailabilityReport(status: .closed(nextOpening: nil)), #"{"status":"closed"}"#),
        (AvailabilityReport(status: .noAgentOnline), #"{"status":"no_agent_online"}"#),
    ])
    func json_isPinned(report: AvailabilityReport, json: String) throws {
        #expect(String(decoding: try ParleyJSON.encode(report), as: UTF8.self) == json)
        #expect(try ParleyJSON.decode(AvailabilityReport.self, from: Data(json.utf8)) == report)
    }

    @Test func json_unknownStatus_isADecodingError() {
        #expect(throws: DecodingError.self) { try ParleyJSON.decode(AvailabilityReport.self, from: Data(#"{"status":"maybe"}"#.utf8)) }
    }
}

@Suite("Wait estimator")
struct WaitEstimatorTests {
    static let now = Date(timeIntervalSince1970: 1_000_000)

    /// Samples assigned 1, 2, 3 … minutes ago, with the given waits in seconds.
    static func samples(_ waits: [Double]) -> [WaitEstimator.Sample] {
        waits.enumerated().map { index, wait in
            let assigned = now.addingTimeInterval(-60 * Double(index + 1))
            return WaitEstimator.Sample(queuedAt: assigned.addingTimeInterval(-wait), assignedAt: assigned)
        }
    }

    @Test func theDocumentedExample() {
        var estimator = WaitEstimator()
        estimator.trimFraction = 0.2
        #expect(estimator.estimate(samples: Self.samples([10, 20, 30, 40, 1_000]), position: 3, now: Self.now) == 90)
    }

    @Test func defaults_trimTenPercent_atEachEnd() {
        // 20 waits: 1 dropped at each end; the 18 left average 50.
        let waits = [1_000.0] + Array(repeating: 50, count: 18) + [0]
        #expect(WaitEstimator().estimate(samples: Self.samples(waits), position: 1, now: Self.now) == 50)
        #expect(WaitEstimator().estimate(samples: Self.samples(waits), position: 4, now: Self.now) == 200)
        #expect(WaitEstimator().estimate(samples: Self.samples(waits), position: 0, now: Self.now) == 50)
    }

    @Test func tooLittleHistory_givesNoEstimate() {
        #expect(WaitEstimator().estimate(samples: Self.samples([30, 40]), position: 1, now: Self.now) == nil)
        #expect(WaitEstimator().estimate(samples: [], position: 1, now: Self.now) == nil)
    }

    @Test func onlyRecentSamples_withinAge_andOnlyTheNewestN_count() {
        var estimator = WaitEstimator()
        estimator.sampleSize = 3
        estimator.trimFraction = 0
        // The three newest wait 10 s; older ones 1,000 s are beyond the sample size.
        #expect(estimator.estimate(samples: Self.samples([10, 10, 10, 1_000, 1_000]).shuffled(), position: 1, now: Self.now) == 10)
        estimator.sampleSize = 50
        estimator.maxSampleAge = 150  // only the two newest (60 s and 120 s ago) are young enough
        #expect(estimator.estimate(samples: Self.samples([10, 10, 10]), position: 1, now: Self.now) == nil)
        // Samples from the future (clock skew) and negative waits are ignored.
        let future = WaitEstimator.Sample(queuedAt: Self.now, assignedAt: Self.now.addingTimeInterval(60))
        let negative = WaitEstimator.Sample(queuedAt: Self.now, assignedAt: Self.now.addingTimeInterval(-30))
        #expect(WaitEstimator().estimate(samples: [future, negative] + Self.samples([20, 20]), position: 1, now: Self.now) == nil)
    }

    @Test func roundsUp_andIsCapped() {
        var estimator = WaitEstimator()
        estimator.trimFraction = 0
        #expect(estimator.estimate(samples: Self.samples([10, 10, 11]), position: 1, now: Self.now) == 11)
        #expect(estimator.estimate(samples: Self.samples([3_000, 3_000, 3_000]), position: 10, now: Self.now) == 4 * 3_600)
    }
}
