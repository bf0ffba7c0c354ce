import Foundation
import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// Sends what waits in the store's mail outbox through SMTP, and retries what fails: a temporary
/// failure (a 4xx, a connection refused, a timeout) waits for the next delay of
/// ``ServerConfiguration/mailRetryDelays``; a permanent one (a 5xx) or the last retry gives up.
/// Every attempt is recorded, so `GET …/transcript/emails` tells what happened. With several nodes,
/// each claims different emails (``ParleyStore/claimDueMail(now:lease:limit:)``).
struct Mailer: Service {
    let store: any ParleyStore
    let smtp: SMTPConfiguration
    let retryDelays: [TimeInterval]
    let pollInterval: TimeInterval
    let clock: any WallClock
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sendDue()
                try? await clock.sleep(for: pollInterval)
            }
        }
    }

    /// Claims the emails due now and tries each once.
    func sendDue() async {
        let now = clock.now()
        let client = SMTPClient(configuration: smtp)
        // Held long enough for one attempt, so no other node takes it meanwhile.
        let lease = Double(smtp.timeout.components.seconds) * 2 + 10
        let due: [OutgoingMail]
        do {
            due = try await store.claimDueMail(now: now, lease: lease, limit: 10)
        } catch {
            logger.warning("mail outbox not readable", metadata: ["error": "\(error)"])
            return
        }
        for mail in due {
            let attempt: MailAttempt
            do {
                try await client.send(message(for: mail))
                attempt = .sent
                logger.info("transcript email sent", metadata: ["parley.mail": "\(mail.record.id)"])
            } catch {
                let permanent = (error as? SMTPError)?.isPermanent ?? false
                let reason = String("\(error)".prefix(500))
                let done = mail.record.attempts + 1
                attempt = permanent || done > retryDelays.count ? .failed(error: reason) : .retry(next: clock.now().addingTimeInterval(retryDelays[done - 1]), error: reason)
                logger.warning("transcript email not sent", metadata: ["parley.mail": "\(mail.record.id)", "attempt": "\(done)", "permanent": "\(permanent)"])
            }
            do {
                try await store.recordMailAttempt(mail.record.id, attempt, at: clock.now())
            } catch {
                logger.warning("mail attempt not recorded", metadata: ["parley.mail": "\(mail.record.id)", "error": "\(error)"])
            }
        }
    }

    private func message(for mail: OutgoingMail) -> MailMessage {
        let domain = smtp.fromEmail.split(separator: "@").last.map(String.init) ?? "parley.localhost"
        return MailMessage(from: .init(name: smtp.fromName, email: smtp.fromEmail), to: .init(name: nil, email: mail.record.recipient),
                           subject: mail.subject, text: mail.text, html: mail.html, date: clock.now(), messageID: "<\(mail.record.id)@\(domain)>")
    }
}
