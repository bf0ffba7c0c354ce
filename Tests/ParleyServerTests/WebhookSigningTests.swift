import Foundation
import ParleyServer
import Testing

/// The pure parts of webhooks: Standard Webhooks signatures, sealed secrets, the backoff table.
struct WebhookSigningTests {
    @Test func signature_matchesTheStandardWebhooksReference() throws {
        // Made by the standardwebhooks package (PyPI): Webhook(secret).sign(id, timestamp, body).
        let signature = try WebhookSignature.sign(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8),
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2hRpZYs0Ov8=")
        #expect(signature == "v1,knL6MbQ7HxtpMRw6S/HV6fMi02NqIBuMxiuy60qL9WM=")
    }

    @Test func headers_duringARotation_carryBothSignatures() throws {
        let new = WebhookSignature.makeSecret(), old = WebhookSignature.makeSecret()
        #expect(new.hasPrefix("whsec_") && Data(base64Encoded: String(new.dropFirst(6)))?.count == 32 && new != old)
        let headers = try WebhookSignature.headers(id: "msg_1", timestamp: 1, body: Data("{}".utf8), secrets: [new, old])
        #expect(headers.map(\.0) == ["webhook-id", "webhook-timestamp", "webhook-signature"])
        let signatures = headers[2].1.split(separator: " ").map(String.init)
        #expect(signatures == [try WebhookSignature.sign(id: "msg_1", timestamp: 1, body: Data("{}".utf8), secret: new),
                               try WebhookSignature.sign(id: "msg_1", timestamp: 1, body: Data("{}".utf8), secret: old)])
        #expect(throws: SecretBoxError.self) { try WebhookSignature.key(of: "not-a-secret") }
    }

    @Test func secretBox_sealsWithAFreshNonce_opensOnlyWithItsKey_andRefusesAlterations() throws {
        let box = try SecretBox(key: Data(repeating: 1, count: 32))
        let first = try box.seal("whsec_abc"), second = try box.seal("whsec_abc")
        #expect(first != second && !first.contains("abc") && first.hasPrefix("v1.\(box.keyID)."))
        #expect(try box.open(first) == "whsec_abc")
        let other = try SecretBox(key: Data(repeating: 2, count: 32))
        #expect(throws: SecretBoxError.self) { try other.open(first) }
        var altered = Array(first)
        let index = "v1.\(box.keyID).".count + 2  // inside the nonce: every bit of the character counts
        altered[index] = altered[index] == "A" ? "g" : "A"
        #expect(throws: SecretBoxError.self) { try box.open(String(altered)) }
        #expect(throws: SecretBoxError.self) { try SecretBox(key: Data(count: 16)) }
    }

    @Test(arguments: [(1, 5.0), (2, 10.0), (3, 20.0), (7, 320.0), (13, 20_480.0), (14, 21_600.0), (40, 21_600.0)])
    func backoff_doublesFrom5sTo6h(_ attempt: Int, _ wait: TimeInterval) {
        #expect(DeliveryBackoff().delay(after: attempt, u: 0) == wait)
    }

    @Test func backoff_jitters_andGivesUpPastTheRetryTime() {
        var backoff = DeliveryBackoff()
        #expect(backoff.delay(after: 1, u: 1) == 6 && backoff.delay(after: 1, u: -1) == 4)
        backoff.retryDuration = 60
        let created = Date(timeIntervalSince1970: 0)
        #expect(backoff.nextAttempt(after: 3, at: created.addingTimeInterval(30), created: created, u: 0) == created.addingTimeInterval(50))
        #expect(backoff.nextAttempt(after: 4, at: created.addingTimeInterval(30), created: created, u: 0) == nil, "30 s + 40 s is past 60 s")
    }
}
