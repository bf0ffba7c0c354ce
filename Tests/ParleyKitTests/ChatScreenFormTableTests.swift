import Foundation
import ParleyCore
import ParleyKit
import ParleyTestSupport
import Testing

/// The shared field validation table through ParleyKit's own path: a one-field pre-chat form submitted
/// on the chat screen either sends the table's normalised value or shows the table's error code.
struct ChatScreenFormTableTests {
    @Test(arguments: FieldValidationCases.all)
    func preChatSubmission_agreesWithTheSharedTable(_ row: FieldValidationCase) {
        var machine = ChatScreenMachine()
        _ = machine.start()
        _ = machine.availabilityLoaded(AvailabilityReport(status: .open))
        let form = Form(kind: .preChat, fields: [row.field])
        _ = machine.formsLoaded(ChatForms(preChat: form))
        var answers = FormAnswers()
        answers[row.field.key] = row.input
        let effects = machine.submitPreChat(answers)
        switch row.expected {
        case .value(let value):
            #expect(effects == [.startConversation(preChatAnswers: [row.field.key: value])])
        case .noAnswer:
            #expect(effects == [.startConversation(preChatAnswers: [:])])
        case .error(let code):
            #expect(effects.isEmpty)
            #expect(machine.screen == .preChat(FormScreen(form: form, errors: FormValidationErrors(fields: [.init(key: row.field.key, code: code)]))))
        }
    }
}
