import Foundation
import ParleyCore
import Testing

/// A JSON document as a tree, to compare examples by content rather than by layout.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    static func parse(_ data: Data) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: data) }
}

/// Checks that every JSON example in docs/protocol.md is exactly what a Parley type encodes.
@Suite("docs/protocol.md examples")
struct DocExampleTests {
    static var documentURL: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/protocol.md")
    }

    /// The JSON documents of every ```json block: the block as a whole, or each line of it.
    static func examples() throws -> [String] {
        let text = try String(contentsOf: documentURL, encoding: .utf8)
        var examples: [String] = []
        var block: [String]?
        for line in text.components(separatedBy: "\n") {
            if block == nil {
                if line == "```json" { block = [] }
            } else if line == "```" {
                let whole = block!.joined(separator: "\n")
                if (try? JSONValue.parse(Data(whole.utf8))) != nil {
                    examples.append(whole)
                } else {
                    examples += block!.filter { !$0.isEmpty }
                }
                block = nil
            } else {
                block!.append(line)
            }
        }
        return examples
    }

    /// Every wire type an example may be.
    static let decoders: [(String, @Sendable (Data) throws -> Data)] = {
        func entry<T: Codable & SendableMetatype>(_ type: T.Type) -> (String, @Sendable (Data) throws -> Data) {
            ("\(T.self)", { try ParleyJSON.encode(try ParleyJSON.decode(T.self, from: $0)) })
        }
        return [
            entry(ClientFrame.self), entry(ServerFrame.self), entry(ErrorBody.self), entry(ConversationEvent.self),
            entry(Conversation.self), entry(Participant.self), entry(Health.self), entry(VisitorSessionRequest.self),
            entry(VisitorSession.self), entry(AgentLoginRequest.self), entry(AgentSession.self), entry(AvailabilityRequest.self),
            entry(Agent.self), entry(OpenConversationRequest.self), entry(ConversationList.self), entry(SendMessageRequest.self),
            entry(SendMessageResponse.self), entry(ReadRequest.self), entry(TypingRequest.self), entry(EventPage.self),
            entry(CreateAppRequest.self), entry(AppCredentials.self), entry(AppList.self), entry(App.self),
            entry(QueueRequest.self), entry(Queue.self), entry(QueueList.self), entry(CreateAgentRequest.self),
            entry(CreatedAgent.self), entry(AgentList.self), entry(UpdateAgentRequest.self),
            entry(DeskSession.self), entry(SearchResults.self), entry(Triage.self), entry(TriageUpdate.self), entry(InboxCounts.self),
            entry(TagList.self), entry(TransferRequest.self), entry(AddNoteRequest.self), entry(InternalNote.self),
            entry(NoteList.self), entry(CannedResponse.self), entry(CannedResponseRequest.self), entry(CannedResponseList.self),
            entry(Team.self), entry(Visitor.self),
            entry(Appearance.self), entry(BusinessHours.self), entry(AvailabilityReport.self), entry(Form.self), entry(FormSet.self),
            entry(FormSubmission.self), entry(FormSubmissionList.self), entry(SubmitFormRequest.self), entry(Rating.self),
            entry(RatingRequest.self), entry(RatingSummary.self), entry(EmailTranscriptRequest.self), entry(TranscriptEmail.self),
            entry(TranscriptEmailList.self), entry(IdentitySettings.self), entry(AttachmentPolicy.self), entry(MaskingRules.self),
            entry(WebhookPayload.self), entry(WebhookEndpoint.self), entry(WebhookEndpointWithSecret.self), entry(WebhookEndpointList.self),
            entry(CreateWebhookRequest.self), entry(UpdateWebhookRequest.self), entry(WebhookDeliveryList.self),
            entry(LinkPolicy.self), entry(PagePush.self), entry(PushDeviceRequest.self), entry(PushDevice.self), entry(PushContent.self),
            entry(RequestCallbackRequest.self), entry(CallbackView.self), entry(CallbackDialog.self), entry(CallbackOutcomeRequest.self),
            entry(CallbackSettings.self), entry(CallbackTextOverrides.self),
            entry(PushSettings.self), entry(PushDeliveryList.self), entry(TeamReport.self), entry(ReportRatingList.self),
        ]
    }()

    @Test("the document has JSON examples")
    func hasExamples() throws {
        #expect(try Self.examples().count >= 40)
    }

    @Test("every JSON example decodes as a Parley type and re-encodes to the same content")
    func examplesMatchTypes() throws {
        for example in try Self.examples() {
            let data = Data(example.utf8)
            let tree = try JSONValue.parse(data)
            let match = Self.decoders.first { _, roundTrip in
                guard let encoded = try? roundTrip(data) else { return false }
                return (try? JSONValue.parse(encoded)) == tree
            }
            #expect(match != nil, "no Parley type encodes this example exactly:\n\(example)")
        }
    }

    @Test("one-line examples are byte-exact encoder output")
    func compactExamplesAreExact() throws {
        for example in try Self.examples() where !example.contains("\n") {
            let data = Data(example.utf8)
            let exact = Self.decoders.contains { _, roundTrip in
                (try? roundTrip(data)).map { String(decoding: $0, as: UTF8.self) } == example
            }
            #expect(exact, "not byte-exact encoder output: \(example)")
        }
    }

    @Test("every fixture is shown verbatim in the document", arguments: Fixtures.all)
    func fixtureShown(_ fixture: GoldenFixture) throws {
        let text = try String(contentsOf: Self.documentURL, encoding: .utf8)
        let bytes = String(decoding: try Fixtures.data(fixture.name), as: UTF8.self)
        #expect(text.contains(bytes))
    }
}
