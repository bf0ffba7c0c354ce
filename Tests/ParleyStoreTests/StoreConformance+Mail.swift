import Foundation
import ParleyCore
import ParleyStore
import Testing

extension StoreConformance {
    static func mailOutbox_claimedOnceWhileLeased_attemptsRecorded(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let now = fixture.clock.next()
        func mail(_ name: String) -> OutgoingMail {
            OutgoingMail(record: TranscriptEmail(id: name, conversationID: id, recipient: "eve@example.com", status: .pending, attempts: 0,
                                                 lastError: nil, createdAt: now, sentAt: nil),
                         appID: fixture.app.id, subject: "Your conversation", text: "text", html: "<p>html</p>")
        }
        try await store.enqueueMail(mail("mail_a"))
        try await store.enqueueMail(mail("mail_b"))
        await expectStoreError(.notFound, "another app's conversation") {
            var foreign = mail("mail_c")
            foreign.appID = fixture.otherApp.id
            try await store.enqueueMail(foreign)
        }

        let first = try await store.claimDueMail(now: now, lease: 60, limit: 10)
        #expect(first.map(\.record.id).sorted() == ["mail_a", "mail_b"])
        #expect(first.first?.html == "<p>html</p>" && first.first?.subject == "Your conversation")
        #expect(try await store.claimDueMail(now: now, lease: 60, limit: 10).isEmpty, "leased: nobody else takes them")

        try await store.recordMailAttempt("mail_a", .sent, at: now)
        try await store.recordMailAttempt("mail_b", .retry(next: now.addingTimeInterval(5), error: "connection refused"), at: now)
        #expect(try await store.claimDueMail(now: now.addingTimeInterval(4), lease: 60, limit: 10).isEmpty)
        let retried = try await store.claimDueMail(now: now.addingTimeInterval(5), lease: 60, limit: 10)
        #expect(retried.map(\.record.id) == ["mail_b"] && retried.first?.record.attempts == 1)
        try await store.recordMailAttempt("mail_b", .failed(error: "550 no such user"), at: now)

        let records = try await store.mail(conversation: id, app: fixture.app.id)
        #expect(records.map(\.status) == [.sent, .failed])
        #expect(records.map(\.attempts) == [1, 2])
        #expect(records[0].sentAt != nil && records[0].lastError == nil && records[1].lastError == "550 no such user")
        #expect(try await store.mail(conversation: id, app: fixture.otherApp.id).isEmpty)
        #expect(try await store.claimDueMail(now: now.addingTimeInterval(3_600), lease: 60, limit: 10).isEmpty, "sent and failed stay done")
    }
}
