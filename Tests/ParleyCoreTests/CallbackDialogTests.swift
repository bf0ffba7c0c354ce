import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// The callback dialogs: which one a request shows where it stands, in Parley's form and in
/// Genesys' (checked key for key against GMS' own examples, GenesysFixtures/), in English and German.
struct CallbackDialogTests {
    let id = CallbackID(rawValue: "cbk_01M7ZT0GEN5R8K2W6Y9C3F7H1Q")
    let agent = AgentID(rawValue: "agt_01KE6SJTQN2G5J8M1P4S7V0Y3B")
    let conversation = ConversationID(rawValue: "cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q")
    let expires = Date(timeIntervalSince1970: 1_800_000_060)
    let base = "https://support.example.com/genesys/1/service"

    func dialog(_ kind: CallbackKind, _ state: CallbackMachine.State, locale: String? = nil) -> CallbackDialog {
        CallbackDialogs.dialog(for: CallbackSnapshot(id: id, kind: kind, state: state, conversationID: conversation, subject: "Order 42",
                                                     dialNumber: "+4930901820", accessCode: "4711"),
                               texts: .standard(for: locale), snoozeMinutes: 5)
    }

    func genesys(_ dialog: CallbackDialog) throws -> [String: Any] {
        let data = try ParleyJSON.encode(GenesysDialog(dialog, serviceBase: base, realtimeURL: "wss://support.example.com/v1/realtime",
                                                       user: "vis_01KE6SJTQN2G5J8M1P4S7V0Y3B"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func fixture(_ name: String) throws -> [String: Any] { try GenesysFixtures.example(name) }

    static func shape(_ value: Any) -> Set<String> { GenesysFixtures.shape(value) }

    @Test func offered_isTheReadyMenu_withSnoozeAndCancel_expiringWithTheOffer() {
        let menu = dialog(.callMe, .offered(agent: agent, expiresAt: expires))
        guard case .menu(let label, let groups) = menu.content else { Issue.record("not a menu"); return }
        #expect(label == "An agent is available right now" && menu.expiresAt == expires)
        #expect(groups.map(\.name) == ["Are you ready?"])
        #expect(groups[0].items.map(\.action) == [.confirm, .snooze, .cancel])
        #expect(groups[0].items.map(\.label) == ["Yes, I'm ready", "No, try again in 5 minutes", "Cancel, my problem has been solved"])
        #expect(groups[0].items[0].confirmation == .init(text: "You will receive the call shortly.", dismissAfter: 2))
        #expect(menu.refreshPath == "/v1/callbacks/\(id)/dialog")
    }

    @Test func connecting_dependsOnTheKind_andWaitingSaysSo_inGerman() {
        #expect(dialog(.iWillCall, .connecting(agent: agent)).content == .dialNumber(label: "Connecting …", telURL: "tel:+4930901820", accessCode: "4711"))
        #expect(dialog(.notifyAndChat, .connecting(agent: agent)).content == .startChat(label: "Start chat", conversationID: conversation, subject: "Order 42"))
        #expect(dialog(.callMe, .connecting(agent: agent)).content == .confirmation(text: "You will receive the call shortly.", okTitle: "OK"))
        #expect(dialog(.callMe, .waiting, locale: "de-AT").content == .confirmation(text: "Wir melden uns, sobald jemand für Sie da ist.", okTitle: "OK"))
        #expect(dialog(.callMe, .scheduled(until: expires)).content == .confirmation(text: "We will ask you again in 5 minutes.", okTitle: "OK"))
    }

    @Test func parleysForm_roundTrips_andReadsAsDocumented() throws {
        for state: CallbackMachine.State in [.waiting, .offered(agent: agent, expiresAt: expires), .connecting(agent: agent), .ended(.cancelled)] {
            for kind in CallbackKind.allCases {
                let value = dialog(kind, state)
                #expect(try ParleyJSON.decode(CallbackDialog.self, from: ParleyJSON.encode(value)) == value)
            }
        }
        let text = String(decoding: try ParleyJSON.encode(dialog(.iWillCall, .connecting(agent: agent))), as: UTF8.self)
        #expect(text == #"{"access_code":"4711","callback_id":"cbk_01M7ZT0GEN5R8K2W6Y9C3F7H1Q","kind":"dial_number","label":"Connecting …","refresh_path":"/v1/callbacks/cbk_01M7ZT0GEN5R8K2W6Y9C3F7H1Q/dialog","tel_url":"tel:+4930901820"}"#)
    }

    @Test(arguments: [
        ("get-dialog-user-confirmation-provide_code-true", CallbackKind.iWillCall, "offered"),
        ("get-dialog-start-chat", .notifyAndChat, "connecting"),
        ("connect-inbound", .iWillCall, "connecting"),
        ("connect-outbound", .callMe, "connecting"),
        ("wait-for-agent", .callMe, "waiting"),
    ])
    func genesysForm_hasTheKeysOfGMSExamples(_ name: String, _ kind: CallbackKind, _ stateName: String) throws {
        let state: CallbackMachine.State = switch stateName {
        case "offered": .offered(agent: agent, expiresAt: expires)
        case "connecting": .connecting(agent: agent)
        default: .waiting
        }
        let ours = try genesys(dialog(kind, state))
        let theirs = try Self.fixture(name)
        #expect(Self.shape(ours) == Self.shape(theirs), "keys differ: ours \(Self.shape(ours).symmetricDifference(Self.shape(theirs)))")
        #expect(ours["_action"] as? String == theirs["_action"] as? String)
        #expect(GenesysCallbackAction(rawValue: name) != nil, "a route action")
    }

    @Test func genesysMenu_pointsItsItemsBackAtTheRoute() throws {
        let menu = try genesys(dialog(.callMe, .offered(agent: agent, expiresAt: expires)))
        let group = try #require((menu["_content"] as? [[String: Any]])?.first)
        let items = try #require(group["_group_content"] as? [[String: Any]])
        #expect(items.compactMap { $0["_user_action_url"] as? String } == ["connect", "snooze", "cancel"].map { "\(base)/\(id)/\($0)" })
        #expect(items.compactMap { $0["_dialog_id"] as? String } == ["1", "2", "3"])
        #expect(menu["_expires"] as? String == "2027-01-15T08:01:00.000Z")
        #expect(GenesysCallbackAction.connect.action == .confirm && GenesysCallbackAction.waitForAgent.action == .dialog)
    }

    @Test func theAppsWords_applyByLanguage_tagsWithoutCase() {
        let overrides = CallbackTextOverrides(languages: ["de": ["ok": "Gut"], "de-AT": ["waiting": "Wir melden uns, sobald wer frei ist."]])
        let austrian = overrides.texts(for: "de-at")
        #expect(austrian.ok == "Gut" && austrian.waiting == "Wir melden uns, sobald wer frei ist.")
        #expect(overrides.texts(for: "DE").ok == "Gut" && overrides.texts(for: "DE").waiting == CallbackDialogTexts.standard(for: "de").waiting)
        #expect(overrides.texts(for: "en") == CallbackDialogTexts())
    }
}
