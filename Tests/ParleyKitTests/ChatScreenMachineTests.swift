import Foundation
import ParleyCore
import ParleyKit
import Testing

/// The chat screen machine, driven by a table: every legal transition from every reachable screen,
/// and every other input from every screen ignored.
struct ChatScreenMachineTests {
    typealias Effect = ChatScreenMachine.Effect

    static let preChat = Form(kind: .preChat, fields: [
        FormField(key: "name", kind: .singleLine, isRequired: true, label: ["en": "Name"]),
        FormField(key: "email", kind: .email, isRequired: true, label: ["en": "Email"]),
    ])
    static let offline = Form(kind: .unavailable, fields: [
        FormField(key: "email", kind: .email, isRequired: true, label: ["en": "Email"]),
        FormField(key: "message", kind: .multiLine, isRequired: true, label: ["en": "Message"]),
    ])
    static let postChat = Form(kind: .postChat, fields: [
        FormField(key: "rating", kind: .rating, isRequired: true, label: ["en": "Rating"]),
        FormField(key: "comment", kind: .multiLine, label: ["en": "Comment"]),
    ])
    static let nextOpening = Date(timeIntervalSince1970: 1_774_854_000)
    static let network = ParleyError.network("offline")
    static let fatal = ParleyError.unauthorized("token refused")
    static let rejected = FormValidationErrors(fields: [.init(key: "email", code: .invalidEmail)])

    /// Everything the client can tell the machine.
    enum Input: CaseIterable {
        case start, availabilityOpen, availabilityClosed, availabilityNoAgent, formsAll, formsNoPreChat, formsNone
        case submitPreChatValid, submitPreChatInvalid, queued, queueUpdated, assigned, cancel, endChat, ended
        case submitPostChatValid, submitPostChatInvalid, skipPostChat, submitOfflineValid, submitOfflineInvalid
        case accepted, rejected, failedNetwork, failedFatal, retry

        func apply(to machine: inout ChatScreenMachine) -> [Effect] {
            switch self {
            case .start: machine.start()
            case .availabilityOpen: machine.availabilityLoaded(.init(status: .open, estimatedWaitSeconds: 120))
            case .availabilityClosed: machine.availabilityLoaded(.init(status: .closed(nextOpening: nextOpening)))
            case .availabilityNoAgent: machine.availabilityLoaded(.init(status: .noAgentOnline))
            case .formsAll: machine.formsLoaded(.init(preChat: preChat, unavailable: offline, postChat: postChat))
            case .formsNoPreChat: machine.formsLoaded(.init(preChat: Form(kind: .preChat, fields: []), unavailable: offline, postChat: postChat))
            case .formsNone: machine.formsLoaded(.init())
            case .submitPreChatValid: machine.submitPreChat(["name": .text(" Ann "), "email": .text("ann@Example.org")])
            case .submitPreChatInvalid: machine.submitPreChat(["email": .text("nope")])
            case .queued: machine.conversationQueued(position: 3)
            case .queueUpdated: machine.queueUpdated(position: 1, estimatedWaitSeconds: 30)
            case .assigned: machine.conversationAssigned()
            case .cancel: machine.cancel()
            case .endChat: machine.endChat()
            case .ended: machine.conversationEnded()
            case .submitPostChatValid: machine.submitPostChat(["rating": .integer(5), "comment": .text("Great ")])
            case .submitPostChatInvalid: machine.submitPostChat(["rating": .integer(9)])
            case .skipPostChat: machine.skipPostChat()
            case .submitOfflineValid: machine.submitOfflineForm(["email": .text("ann@example.org"), "message": .text("Call me")])
            case .submitOfflineInvalid: machine.submitOfflineForm(["message": .text("")])
            case .accepted: machine.submissionAccepted()
            case .rejected: machine.submissionRejected(ChatScreenMachineTests.rejected)
            case .failedNetwork: machine.failed(network)
            case .failedFatal: machine.failed(fatal)
            case .retry: machine.retry()
            }
        }
    }

    /// Every screen the machine can reach, and the inputs that reach it from a fresh machine.
    enum Spot: CaseIterable {
        case fresh, fetching, halfLoaded, starting, preChat, preChatSubmitting, queued, chatting, postChat
        case postChatSubmitting, ended, unavailable, unavailableWithoutForm, unavailableSubmitting, cancelled
        case offlineSubmitted, errorRetryable, errorFatal

        var path: [Input] {
            switch self {
            case .fresh: []
            case .fetching: [.start]
            case .halfLoaded: [.start, .availabilityOpen]
            case .starting: [.start, .availabilityOpen, .formsNoPreChat]
            case .preChat: [.start, .availabilityOpen, .formsAll]
            case .preChatSubmitting: Spot.preChat.path + [.submitPreChatValid]
            case .queued: Spot.preChatSubmitting.path + [.queued]
            case .chatting: Spot.queued.path + [.assigned]
            case .postChat: Spot.chatting.path + [.ended]
            case .postChatSubmitting: Spot.postChat.path + [.submitPostChatValid]
            case .ended: Spot.postChatSubmitting.path + [.accepted]
            case .unavailable: [.start, .availabilityClosed, .formsAll]
            case .unavailableWithoutForm: [.start, .availabilityNoAgent, .formsNone]
            case .unavailableSubmitting: Spot.unavailable.path + [.submitOfflineValid]
            case .cancelled: Spot.queued.path + [.cancel]
            case .offlineSubmitted: Spot.unavailableSubmitting.path + [.accepted]
            case .errorRetryable: [.start, .failedNetwork]
            case .errorFatal: [.start, .failedFatal]
            }
        }

        func machine() -> ChatScreenMachine {
            var machine = ChatScreenMachine()
            for input in path { _ = input.apply(to: &machine) }
            return machine
        }
    }

    static let closed = UnavailableReason.closed(nextOpening: nextOpening)
    static let preChatValues: [String: FormValue] = ["name": .text("Ann"), "email": .text("ann@example.org")]

    /// The legal transitions: (from, input) → (screen after, effects).
    static let transitions: [String: (ChatScreen, [Effect])] = {
        var table: [String: (ChatScreen, [Effect])] = [
            "fresh/start": (.loading, [.fetchAvailability, .fetchForms]),
            "fetching/availabilityOpen": (.loading, []),
            "fetching/availabilityClosed": (.loading, []),
            "fetching/availabilityNoAgent": (.loading, []),
            "fetching/formsAll": (.loading, []),
            "fetching/formsNoPreChat": (.loading, []),
            "fetching/formsNone": (.loading, []),
            "halfLoaded/formsAll": (.preChat(FormScreen(form: preChat)), []),
            "halfLoaded/formsNoPreChat": (.loading, [.startConversation(preChatAnswers: [:])]),
            "halfLoaded/formsNone": (.loading, [.startConversation(preChatAnswers: [:])]),
            "starting/queued": (.queued(position: 3, estimatedWaitSeconds: 120), []),
            "starting/assigned": (.chatting, []),
            "preChat/submitPreChatValid": (.preChat(FormScreen(form: preChat, isSubmitting: true)), [.startConversation(preChatAnswers: preChatValues)]),
            "preChat/submitPreChatInvalid": (.preChat(FormScreen(form: preChat, errors: .init(fields: [.init(key: "name", code: .required), .init(key: "email", code: .invalidEmail)]))), []),
            "preChatSubmitting/queued": (.queued(position: 3, estimatedWaitSeconds: 120), []),
            "preChatSubmitting/assigned": (.chatting, []),
            "preChatSubmitting/rejected": (.preChat(FormScreen(form: preChat, errors: rejected)), []),
            "preChatSubmitting/failedNetwork": (.preChat(FormScreen(form: preChat, failure: network)), []),
            "queued/queueUpdated": (.queued(position: 1, estimatedWaitSeconds: 30), []),
            "queued/assigned": (.chatting, []),
            "queued/cancel": (.unavailable(.cancelled, FormScreen(form: offline)), [.cancelConversation]),
            "queued/ended": (.postChat(FormScreen(form: postChat)), []),
            "chatting/endChat": (.chatting, [.endConversation]),
            "chatting/ended": (.postChat(FormScreen(form: postChat)), []),
            "postChat/submitPostChatValid": (.postChat(FormScreen(form: postChat, isSubmitting: true)), [.submitPostChat(["rating": .integer(5), "comment": .text("Great")])]),
            "postChat/submitPostChatInvalid": (.postChat(FormScreen(form: postChat, errors: .init(fields: [.init(key: "rating", code: .outOfRange)]))), []),
            "postChat/skipPostChat": (.ended, []),
            "postChatSubmitting/accepted": (.ended, []),
            "postChatSubmitting/rejected": (.postChat(FormScreen(form: postChat, errors: rejected)), []),
            "postChatSubmitting/failedNetwork": (.postChat(FormScreen(form: postChat, failure: network)), []),
            "unavailable/submitOfflineValid": (.unavailable(closed, FormScreen(form: offline, isSubmitting: true)), [.submitOfflineForm(["email": .text("ann@example.org"), "message": .text("Call me")])]),
            "unavailable/submitOfflineInvalid": (.unavailable(closed, FormScreen(form: offline, errors: .init(fields: [.init(key: "email", code: .required), .init(key: "message", code: .required)]))), []),
            "unavailableSubmitting/accepted": (.offlineSubmitted, []),
            "unavailableSubmitting/rejected": (.unavailable(closed, FormScreen(form: offline, errors: rejected)), []),
            "unavailableSubmitting/failedNetwork": (.unavailable(closed, FormScreen(form: offline, failure: network)), []),
            "cancelled/submitOfflineValid": (.unavailable(.cancelled, FormScreen(form: offline, isSubmitting: true)), [.submitOfflineForm(["email": .text("ann@example.org"), "message": .text("Call me")])]),
            "cancelled/submitOfflineInvalid": (.unavailable(.cancelled, FormScreen(form: offline, errors: .init(fields: [.init(key: "email", code: .required), .init(key: "message", code: .required)]))), []),
            "errorRetryable/retry": (.loading, [.fetchAvailability, .fetchForms]),
        ]
        // Any failure outside a form submission shows the error screen; a fatal one does even then.
        for spot in Spot.allCases where ![.ended, .offlineSubmitted, .errorRetryable, .errorFatal].contains(spot) {
            table["\(spot)/failedFatal"] = (.error(fatal), [])
            if table["\(spot)/failedNetwork"] == nil { table["\(spot)/failedNetwork"] = (.error(network), []) }
        }
        return table
    }()

    static var legalPairs: [(Spot, Input)] {
        Spot.allCases.flatMap { spot in Input.allCases.map { (spot, $0) } }.filter { transitions["\($0.0)/\($0.1)"] != nil }
    }

    static var illegalPairs: [(Spot, Input)] {
        Spot.allCases.flatMap { spot in Input.allCases.map { (spot, $0) } }.filter { transitions["\($0.0)/\($0.1)"] == nil }
    }

    @Test func everyPathReachesTheScreenItNames() {
        #expect(Spot.fresh.machine().screen == .loading)
        #expect(Spot.preChat.machine().screen == .preChat(FormScreen(form: Self.preChat)))
        #expect(Spot.queued.machine().screen == .queued(position: 3, estimatedWaitSeconds: 120))
        #expect(Spot.ended.machine().screen == .ended)
        #expect(Spot.unavailable.machine().screen == .unavailable(Self.closed, FormScreen(form: Self.offline)))
        #expect(Spot.unavailableWithoutForm.machine().screen == .unavailable(.noAgentOnline, nil))
        #expect(Spot.offlineSubmitted.machine().screen == .offlineSubmitted)
        #expect(Spot.errorRetryable.machine().screen == .error(Self.network))
        #expect(Spot.errorFatal.machine().screen == .error(Self.fatal))
        #expect(Spot.halfLoaded.machine().availability == AvailabilityReport(status: .open, estimatedWaitSeconds: 120))
    }

    @Test(arguments: legalPairs)
    func legalTransition(from spot: Spot, input: Input) throws {
        var machine = spot.machine()
        let (screen, effects) = try #require(Self.transitions["\(spot)/\(input)"])
        #expect(input.apply(to: &machine) == effects)
        #expect(machine.screen == screen)
    }

    @Test(arguments: illegalPairs)
    func illegalInput_isIgnored(at spot: Spot, input: Input) {
        var machine = spot.machine()
        let before = machine
        #expect(input.apply(to: &machine).isEmpty)
        #expect(machine == before)
    }

    @Test func tables_coverEverySpotAndInput() {
        #expect(Self.legalPairs.count == Self.transitions.count)
        #expect(Self.legalPairs.count + Self.illegalPairs.count == Spot.allCases.count * Input.allCases.count)
        for input in Input.allCases {
            #expect(Self.legalPairs.contains { $0.1 == input }, "\(input) is legal somewhere")
        }
    }

    @Test func happyPath_endToEnd_withoutForms() {
        var machine = ChatScreenMachine()
        #expect(machine.start() == [.fetchAvailability, .fetchForms])
        #expect(machine.formsLoaded(ChatForms()).isEmpty)
        #expect(machine.availabilityLoaded(.init(status: .open)) == [.startConversation(preChatAnswers: [:])])
        #expect(machine.conversationQueued(position: nil).isEmpty)
        #expect(machine.screen == .queued(position: nil, estimatedWaitSeconds: nil))
        _ = machine.conversationAssigned()
        #expect(machine.endChat() == [.endConversation])
        _ = machine.conversationEnded()
        #expect(machine.screen == .ended)
    }

    @Test func aPositionUpdate_keepsTheEstimate_scaledToTheNewPlace() {
        // Queued third with 120 s: 40 s a place. The server's position frames carry no estimate.
        var machine = Spot.queued.machine()
        _ = machine.queueUpdated(position: 2, estimatedWaitSeconds: nil)
        #expect(machine.screen == .queued(position: 2, estimatedWaitSeconds: 80))
        _ = machine.queueUpdated(position: 1, estimatedWaitSeconds: nil)
        #expect(machine.screen == .queued(position: 1, estimatedWaitSeconds: 40))
        // A new estimate replaces the rate; an update without a position keeps the place.
        _ = machine.queueUpdated(position: 2, estimatedWaitSeconds: 50)
        #expect(machine.screen == .queued(position: 2, estimatedWaitSeconds: 50))
        _ = machine.queueUpdated(position: nil, estimatedWaitSeconds: nil)
        #expect(machine.screen == .queued(position: 2, estimatedWaitSeconds: 50))
        _ = machine.queueUpdated(position: 1, estimatedWaitSeconds: nil)
        #expect(machine.screen == .queued(position: 1, estimatedWaitSeconds: 25))

        // Without any estimate there is none to keep.
        var unknown = ChatScreenMachine()
        _ = unknown.start()
        _ = unknown.formsLoaded(ChatForms())
        _ = unknown.availabilityLoaded(.init(status: .open))
        _ = unknown.conversationQueued(position: 4)
        _ = unknown.queueUpdated(position: 3, estimatedWaitSeconds: nil)
        #expect(unknown.screen == .queued(position: 3, estimatedWaitSeconds: nil))
    }

    @Test func retry_afterARetryableError_startsOverAndCanReachAnotherOutcome() {
        var machine = Spot.errorRetryable.machine()
        #expect(machine.retry() == [.fetchAvailability, .fetchForms])
        #expect(machine.availability == nil && machine.forms == nil)
        _ = machine.availabilityLoaded(.init(status: .closed(nextOpening: nil)))
        _ = machine.formsLoaded(.init(unavailable: Self.offline))
        #expect(machine.screen == .unavailable(.closed(nextOpening: nil), FormScreen(form: Self.offline)))
    }

    @Test func resubmitting_afterAFailure_sendsAgain() {
        var machine = Spot.postChatSubmitting.machine()
        _ = machine.failed(Self.network)
        #expect(machine.submitPostChat(["rating": .text("4")]) == [.submitPostChat(["rating": .integer(4)])])
        _ = machine.submissionAccepted()
        #expect(machine.screen == .ended)
    }
}
