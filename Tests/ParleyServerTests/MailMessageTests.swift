import Foundation
@testable import ParleyServer
import Testing

/// The email Parley writes, and the SMTP settings it reads, without a network.
struct MailMessageTests {
    let message = MailMessage(
        from: .init(name: "Acme Support", email: "support@acme.test"), to: .init(name: nil, email: "eve@example.com"),
        subject: "Bonjour\r\nBcc: everyone@example.com", text: "Hello\n.\nbye", html: "<p>Hello</p>",
        date: Date(timeIntervalSince1970: 1_795_000_000), messageID: "<mail_1@acme.test>")

    @Test func headersCarryUserTextEncoded_soNoLineBreakMakesAHeader() throws {
        let rendered = message.rendered(boundary: "b")
        let headerBlock = try #require(rendered.components(separatedBy: "\r\n\r\n").first)
        #expect(!headerBlock.contains("Bcc:"), "an injected header stays inside the encoded subject")
        #expect(headerBlock.contains("Subject: =?UTF-8?B?"))
        #expect(headerBlock.contains("From: =?UTF-8?B?\(Data("Acme Support".utf8).base64EncodedString())?= <support@acme.test>"))
        #expect(headerBlock.contains("To: <eve@example.com>"))
        #expect(headerBlock.contains("Date: Wed, 18 Nov 2026 11:06:40 +0000"))
        #expect(rendered.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 }, "lines within RFC 5322's 78")
    }

    @Test func bodiesAreBase64Parts_andDataIsDotStuffed() {
        let rendered = message.rendered(boundary: "b")
        #expect(rendered.contains("--b\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n\(Data("Hello\n.\nbye".utf8).base64EncodedString())\r\n"))
        #expect(rendered.hasSuffix("--b--\r\n"))
        #expect(SMTPClient.dotStuffed(".start\r\nmiddle\r\n.\r\nend") == "..start\r\nmiddle\r\n..\r\nend\r\n")
    }

    @Test func smtpURLs_readWithDefaults_passwordOnlyOverTLS() throws {
        let relay = try SMTPConfiguration(url: "smtp://relay.internal", from: "support@acme.test")
        #expect(relay.port == 25 && relay.security == .none && relay.username == nil && relay.fromName == nil)
        let submission = try SMTPConfiguration(url: "smtps://bot%40acme.test:p%40ss@mail.acme.test", from: "Acme Support <Support@Acme.test>")
        #expect(submission.port == 465 && submission.security == .tls && submission.username == "bot@acme.test" && submission.password == "p@ss")
        #expect(submission.fromName == "Acme Support" && submission.fromEmail == "Support@acme.test")
        #expect(throws: SMTPConfigurationError.self) { try SMTPConfiguration(url: "smtp://user:secret@relay.internal", from: "a@acme.test") }
        #expect(throws: SMTPConfigurationError.self) { try SMTPConfiguration(url: "http://relay.internal", from: "a@acme.test") }
        #expect(throws: SMTPConfigurationError.self) { try SMTPConfiguration(url: "smtp://relay.internal", from: "nobody") }
    }
}
