import Foundation
import ParleyCore
import Testing

@Suite("Transcripts")
struct TranscriptTests {
    static let start = utc(2026, 3, 29, 12, 5)
    static let visitorID = VisitorID.generate(), agentID = AgentID.generate(), otherAgentID = AgentID.generate()
    static let conversationID = ConversationID.generate()

    static func conversation(subject: String?) -> Conversation {
        Conversation(id: conversationID, appID: .generate(), queueID: .generate(), visitorID: visitorID, subject: subject,
                     attributes: [:], state: .ended, agentID: agentID, lastSeq: 9, createdAt: start, updatedAt: start, queuedAt: nil)
    }

    static func events(visitorName: String?, agentName: String?, message: String) -> [ConversationEvent] {
        let visitor = Participant.visitor(visitorID, name: visitorName), agent = Participant.agent(agentID, name: agentName)
        let other = Participant.agent(otherAgentID, name: "Cleo")
        let bodies: [(Participant, EventBody)] = [
            (visitor, .stateChanged(.init(from: nil, to: .queued, reason: .opened))),
            (visitor, .message(.init(clientMessageID: "m1", text: message))),
            (.system, .stateChanged(.init(from: .queued, to: .assigned, reason: .assigned, agentID: agentID))),
            (agent, .participantJoined(.init(participant: agent))),
            (agent, .read(.init(readSeq: 2))),
            (agent, .message(.init(clientMessageID: "m2", text: "Hello!\nHow can I help?"))),
            (agent, .stateChanged(.init(from: .assigned, to: .assigned, reason: .transferred, agentID: otherAgentID))),
            (agent, .participantLeft(.init(participant: agent, reason: .transferred))),
            (other, .participantJoined(.init(participant: other))),
            (other, .stateChanged(.init(from: .assigned, to: .ended, reason: .endedByAgent))),
            (other, .participantLeft(.init(participant: other, reason: .ended))),
        ]
        return bodies.enumerated().map { index, pair in
            ConversationEvent(conversationID: conversationID, seq: Int64(index + 1), createdAt: start.addingTimeInterval(Double(index) * 60),
                              author: pair.0, body: pair.1)
        }
    }

    @Test func plainText_hasTimesWhoTextAndSystemLines_inTheGivenZone() {
        let transcript = Transcript(conversation: Self.conversation(subject: "Order 1234"),
                                    events: Self.events(visitorName: "Ann", agentName: "Bob", message: "Where is my order?").reversed())
        let text = transcript.plainText(options: .init(timeZone: TimeZone(identifier: "Europe/Berlin")!))
        #expect(text == """
        Conversation transcript
        Subject: Order 1234
        Times in Europe/Berlin

        [2026-03-29 14:05] * Conversation started
        [2026-03-29 14:06] Ann: Where is my order?
        [2026-03-29 14:08] * Bob joined
        [2026-03-29 14:10] Bob: Hello!
            How can I help?
        [2026-03-29 14:11] * Transferred to another agent
        [2026-03-29 14:12] * Bob handed the conversation over
        [2026-03-29 14:13] * Cleo joined
        [2026-03-29 14:14] * Cleo ended the conversation
        [2026-03-29 14:15] * Cleo left

        """)
    }

    @Test func unnamedParticipants_areNamedByRole_andEveryNoticeHasWords() {
        let transcript = Transcript(conversation: Self.conversation(subject: nil),
                                    events: Self.events(visitorName: nil, agentName: "  ", message: "hi"))
        let text = transcript.plainText()
        #expect(text.contains("[2026-03-29 12:06] Visitor: hi"))
        #expect(text.contains("* Agent joined"))
        #expect(!text.contains("Subject:"))
        #expect(text.contains("Times in GMT") || text.contains("Times in UTC"))
        let reasons: [(StateChange.Reason, ConversationState, String)] = [
            (.endedByVisitor, .ended, "Visitor ended the conversation"), (.cancelled, .ended, "The visitor cancelled while waiting"),
            (.reopened, .queued, "The conversation was reopened"), (.requeued, .queued, "The conversation went back to the queue"),
            (.transferred, .queued, "Transferred to another queue"),
        ]
        for (reason, to, words) in reasons {
            let event = ConversationEvent(conversationID: Self.conversationID, seq: 1, createdAt: Self.start, author: .visitor(Self.visitorID, name: nil),
                                          body: .stateChanged(.init(from: .assigned, to: to, reason: reason)))
            #expect(Transcript(conversation: Self.conversation(subject: nil), events: [event]).lines.map(\.content) == [.notice(words)])
        }
        let offline = ConversationEvent(conversationID: Self.conversationID, seq: 1, createdAt: Self.start, author: .system,
                                        body: .participantLeft(.init(participant: .agent(Self.agentID, name: "Bob"), reason: .offline)))
        #expect(Transcript(conversation: Self.conversation(subject: nil), events: [offline]).lines.map(\.content)
            == [.notice("Bob went offline; the conversation went back to the queue")])
    }

    @Test func plainText_neutralisesTerminalControlCharacters() {
        let transcript = Transcript(conversation: Self.conversation(subject: "a\u{1B}[2J"),
                                    events: Self.events(visitorName: "Ann\u{7}", agentName: "Bob", message: "red \u{1B}[31m\r\nnext\tcol"))
        let text = transcript.plainText()
        #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" })
        #expect(text.contains("Subject: a\u{FFFD}[2J"))
        #expect(text.contains("Ann\u{FFFD}: red \u{FFFD}[31m\n    next\tcol"))
    }

    static let hostile = [
        "<script>alert(1)</script>",
        "\"><img src=x onerror=alert(1)>",
        "' onmouseover='alert(1)",
        "Tom & Jerry &amp; co",
        "</p></li></ol><iframe src=\"https://evil.example\">",
    ]

    @Test(arguments: hostile)
    func html_escapesInjectedMarkup_everywhereUserTextGoes(payload: String) {
        let transcript = Transcript(conversation: Self.conversation(subject: payload),
                                    events: Self.events(visitorName: payload, agentName: payload, message: payload))
        let html = transcript.html(options: .init(title: payload, language: payload))
        let escaped = Transcript.escapeHTML(payload)
        #expect(!html.contains(payload), "the raw payload must never appear")
        #expect(html.contains("<title>\(escaped)</title>"))
        #expect(html.contains("<html lang=\"\(escaped)\">"))
        #expect(html.contains("Subject: \(escaped)"))
        #expect(html.contains("<p class=\"text\">\(escaped)</p>"))
        #expect(html.contains("<span class=\"author\" title=\"\(Self.visitorID.rawValue)\">\(escaped)</span>"))
        // The only tags are ours: no script, iframe or img elements, no event-handler attributes.
        for forbidden in ["<script", "<img", "<iframe"] {
            #expect(!html.lowercased().contains(forbidden))
        }
        #expect(Self.tags(html).allSatisfy { !$0.contains("onerror") && !$0.contains("onmouseover") && !$0.contains("src=") })
        #expect(Self.tags(html).contains { $0.hasPrefix("span class= title=") })
        // No double-quoted attribute value holds an angle bracket (the payload cannot close one).
        #expect(Self.attributeValues(html).allSatisfy { !$0.contains("<") && !$0.contains(">") })
    }

    @Test func escapeHTML_escapesTheFiveCharacters() {
        #expect(Transcript.escapeHTML(#"<a href="x" title='y'>&</a>"#) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
        #expect(Transcript.escapeHTML("plain 👋 text") == "plain 👋 text")
    }

    @Test func html_isAStandalonePrintableDocument() {
        let transcript = Transcript(conversation: Self.conversation(subject: nil), events: Self.events(visitorName: "Ann", agentName: "Bob", message: "hi"))
        let html = transcript.html()
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.contains("<meta charset=\"utf-8\">"))
        #expect(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""))
        #expect(html.contains("@media print"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
        #expect(html.contains("<time datetime=\"2026-03-29T12:06:00.000Z\">2026-03-29 12:06</time>"))
        #expect(html.contains("<li class=\"message agent\">"))
        #expect(html.contains("<p class=\"text\">Hello!\nHow can I help?</p>"))
        #expect(html.contains("<li class=\"notice\"><time datetime=\"2026-03-29T12:08:00.000Z\">2026-03-29 12:08</time> <span>Bob joined</span></li>"))
        #expect(html.components(separatedBy: "<li").count - 1 == transcript.lines.count)
    }

    @Test func readMarkers_andAssignments_leaveNoLine_andInternalNotesHaveNoWayIn() {
        let transcript = Transcript(conversation: Self.conversation(subject: nil), events: Self.events(visitorName: nil, agentName: nil, message: "x"))
        // 11 events less one read marker and one assignment (the "joined" line says it).
        #expect(transcript.lines.count == 9)
    }

    /// Every real tag, from `<` to `>`, with its double-quoted attribute values removed: the element
    /// and attribute names the browser sees (escaped user text holds no `<`, `>` or `"`).
    static func tags(_ html: String) -> [String] {
        html.components(separatedBy: "<").dropFirst().compactMap { part in
            part.split(separator: ">", maxSplits: 1).first.map { tag in
                tag.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
            }
        }
    }

    /// The values of double-quoted attributes in a document (ours are all double-quoted).
    static func attributeValues(_ html: String) -> [String] {
        html.components(separatedBy: "=\"").dropFirst().compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
    }
}
