import Foundation
import ParleyCore
import Testing

/// The callback request's rules, without a server: offers, confirmation, snooze with the place
/// kept, cancel, expiry per the queue's setting, outcomes and reschedules, and refusals that change nothing.
struct CallbackMachineTests {
    let agent = AgentID.generate()
    let other = AgentID.generate()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func apply(_ input: CallbackMachine.Input, to state: CallbackMachine.State) throws -> CallbackMachine.State {
        try CallbackMachine.apply(input, to: state)
    }

    @Test func offer_confirm_outcome_endsCompleted() throws {
        let offered = try apply(.agentReady(agent, confirmWithin: 60, at: now), to: .waiting)
        #expect(offered == .offered(agent: agent, expiresAt: now.addingTimeInterval(60)))
        let connecting = try apply(.confirm(at: now.addingTimeInterval(59)), to: offered)
        #expect(connecting == .connecting(agent: agent))
        #expect(try apply(.outcome(.connected, by: agent, retryAt: nil), to: connecting) == .ended(.completed))
    }

    @Test func snooze_schedules_thenDueWaitsAgain_andEarlyDueChangesNothing() throws {
        let offered = CallbackMachine.State.offered(agent: agent, expiresAt: now.addingTimeInterval(60))
        let snoozed = try apply(.snooze(for: 300, at: now), to: offered)
        #expect(snoozed == .scheduled(until: now.addingTimeInterval(300)))
        #expect(try apply(.due(at: now.addingTimeInterval(299)), to: snoozed) == snoozed)
        #expect(try apply(.due(at: now.addingTimeInterval(300)), to: snoozed) == .waiting)
        #expect(throws: CallbackMachine.Refusal.self) { try apply(.snooze(for: 0, at: now), to: offered) }
    }

    @Test func expiry_requeuesOrEnds_perTheQueue_andALateConfirmIsRefused() throws {
        let offered = CallbackMachine.State.offered(agent: agent, expiresAt: now.addingTimeInterval(60))
        #expect(try apply(.expire(policy: .requeue, at: now.addingTimeInterval(30)), to: offered) == offered, "not yet")
        #expect(try apply(.expire(policy: .requeue, at: now.addingTimeInterval(60)), to: offered) == .waiting)
        #expect(try apply(.expire(policy: .end, at: now.addingTimeInterval(61)), to: offered) == .ended(.expired))
        let late = #expect(throws: CallbackMachine.Refusal.self) { try apply(.confirm(at: now.addingTimeInterval(60)), to: offered) }
        #expect(late?.description.contains("expired") == true)
        // A stale timer (the visitor confirmed first) changes nothing.
        #expect(try apply(.expire(policy: .end, at: now.addingTimeInterval(90)), to: .connecting(agent: agent)) == .connecting(agent: agent))
    }

    @Test func cancel_endsFromAnyLiveState_andNothingChangesAnEndedRequest() throws {
        for state: CallbackMachine.State in [.waiting, .offered(agent: agent, expiresAt: now), .connecting(agent: agent), .scheduled(until: now)] {
            #expect(try apply(.cancel, to: state) == .ended(.cancelled))
        }
        for input: CallbackMachine.Input in [.cancel, .confirm(at: now), .agentReady(agent, confirmWithin: 60, at: now), .due(at: now)] {
            #expect(throws: CallbackMachine.Refusal.self) { try apply(input, to: .ended(.completed)) }
        }
    }

    @Test func outcomes_onlyByTheAgent_noAnswerMayBeRetried_doneMayNot() throws {
        let connecting = CallbackMachine.State.connecting(agent: agent)
        #expect(throws: CallbackMachine.Refusal.self) { try apply(.outcome(.done, by: other, retryAt: nil), to: connecting) }
        let later = now.addingTimeInterval(3_600)
        #expect(try apply(.outcome(.noAnswer, by: agent, retryAt: later), to: connecting) == .scheduled(until: later))
        #expect(try apply(.outcome(.wrongNumber, by: agent, retryAt: nil), to: connecting) == .ended(.completed))
        #expect(throws: CallbackMachine.Refusal.self) { try apply(.outcome(.done, by: agent, retryAt: later), to: connecting) }
    }

    @Test func inputsOutOfOrder_areRefusedWithTheReason() {
        let refusal = #expect(throws: CallbackMachine.Refusal.self) { try apply(.confirm(at: now), to: .waiting) }
        #expect(refusal?.description == "cannot confirm a request that is waiting")
        #expect(throws: CallbackMachine.Refusal.self) { try apply(.agentReady(other, confirmWithin: 60, at: now), to: .connecting(agent: agent)) }
        #expect(throws: CallbackMachine.Refusal.self) { try apply(.snooze(for: 60, at: now), to: .waiting) }
        #expect(throws: CallbackMachine.Refusal.self) { try apply(.outcome(.done, by: agent, retryAt: nil), to: .waiting) }
    }
}
