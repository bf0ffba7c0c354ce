import Foundation

/// A ``CallbackDialog`` in Genesys Mobile Services' form, for the compatibility route
/// `/genesys/1/service/{id}/{action}`: underscore-keyed JSON (`_action: DisplayMenu|MenuItem|
/// ConfirmationDialog|DialNumber|StartChat`, `_label`, `_content`, `_user_action_url`, …), so an app
/// built on the GMS sample works by changing its server URL. Urls point back at the same route.
public struct GenesysDialog: Hashable, Sendable, Encodable {
    var dialogID: String
    var action: String
    var label: String?
    var text: String?
    var okTitle: String?
    var userActionURL: String?
    var method: String?
    var expires: Date?
    var resourceURL: String?
    var content: [Group]?
    var telURL: String?
    var accessCode: String?
    var startChatURL: String?
    var cometURL: String?
    var userHeader: String?
    var idToJumpBefore: String?
    var chatParameters: [String: String]?
    var id: String?

    struct Group: Hashable, Sendable, Encodable {
        var groupName: String
        var groupContent: [Item]
        enum CodingKeys: String, CodingKey { case groupName = "_group_name", groupContent = "_group_content" }
    }

    struct Item: Hashable, Sendable, Encodable {
        var dialogID: String
        var label: String
        var action = "MenuItem"
        var userActionURL: String
        var method = "POST"
        var idToJumpBefore = "exit://"
        var confirmationDialog: Note?
        enum CodingKeys: String, CodingKey {
            case dialogID = "_dialog_id", label = "_label", action = "_action", userActionURL = "_user_action_url", method = "_method"
            case idToJumpBefore = "_id_to_jump_before", confirmationDialog = "_confirmation_dialog"
        }
    }

    struct Note: Hashable, Sendable, Encodable {
        var text: String
        var dialogType = "Notification"
        var dismissTimeout: Int?
        enum CodingKeys: String, CodingKey { case text = "_text", dialogType = "_dialog_type", dismissTimeout = "_dismiss_timeout" }
    }

    enum CodingKeys: String, CodingKey {
        case dialogID = "_dialog_id", action = "_action", label = "_label", text = "_text", okTitle = "_ok_title"
        case userActionURL = "_user_action_url", method = "_method", expires = "_expires", resourceURL = "_resource_url", content = "_content"
        case telURL = "_tel_url", accessCode = "_access_code", startChatURL = "_start_chat_url", cometURL = "_comet_url"
        case userHeader = "_user_header", idToJumpBefore = "_id_to_jump_before"
        case chatParameters = "_chat_parameters", id = "_id"
    }

    /// The Genesys action each of ours answers to: `confirm` is `connect`, `snooze` and `cancel` keep their names.
    static func genesysAction(_ action: CallbackAction) -> String {
        switch action {
        case .confirm: "connect"
        case .snooze: "snooze"
        case .cancel: "cancel"
        case .dialog: "get-dialog-user-confirmation"
        }
    }

    /// `dialog` in Genesys' form.
    /// - Parameters:
    ///   - dialog: the dialog, as Parley has it.
    ///   - serviceBase: the route's base, such as `https://support.example.com/genesys/1/service`.
    ///   - realtimeURL: where the chat's events come from (GMS' `_comet_url`: Parley's `/v1/realtime`).
    ///   - user: who the app is (GMS' `_user_header`: the visitor's id).
    public init(_ dialog: CallbackDialog, serviceBase: String, realtimeURL: String, user: String) {
        let service = "\(serviceBase)/\(dialog.callbackID.rawValue)"
        dialogID = "0"
        switch dialog.content {
        case .menu(let label, let groups):
            action = "DisplayMenu"
            self.label = label
            userActionURL = "\(service)/not-used"
            method = "POST"
            expires = dialog.expiresAt
            resourceURL = "\(service)/get-dialog-user-confirmation"
            var number = 0
            content = groups.map { group in
                Group(groupName: group.name, groupContent: group.items.map { item in
                    number += 1
                    return Item(dialogID: String(number), label: item.label, userActionURL: "\(service)/\(Self.genesysAction(item.action))",
                                confirmationDialog: item.confirmation.map { Note(text: $0.text, dismissTimeout: $0.dismissAfter) })
                })
            }
        case .confirmation(let text, let okTitle):
            action = "ConfirmationDialog"
            self.text = text
            self.okTitle = okTitle
            id = dialog.callbackID.rawValue
        case .dialNumber(let label, let telURL, let accessCode):
            action = "DialNumber"
            self.label = label
            self.telURL = telURL
            self.accessCode = accessCode
            id = dialog.callbackID.rawValue
        case .startChat(let label, let conversationID, let subject):
            dialogID = "1"
            action = "StartChat"
            self.label = label
            startChatURL = "\(service)/ixn/chat/\(conversationID.rawValue)"
            cometURL = realtimeURL
            userHeader = user
            idToJumpBefore = "exit://"
            chatParameters = ["subject": subject ?? "None"]
            id = dialog.callbackID.rawValue
        }
    }
}

/// The actions of Genesys' callback route, as the GMS sample app sends them, and what each means here.
public enum GenesysCallbackAction: String, Hashable, Sendable, CaseIterable {
    case confirmationWithCode = "get-dialog-user-confirmation-provide_code-true"
    case confirmationWithoutCode = "get-dialog-user-confirmation-provide_code-false"
    /// A menu's `_resource_url`: the same dialog again.
    case confirmation = "get-dialog-user-confirmation"
    case startChat = "get-dialog-start-chat"
    case connectInbound = "connect-inbound"
    case connectOutbound = "connect-outbound"
    case waitForAgent = "wait-for-agent"
    case snooze
    case connect
    case cancel

    /// Our action: reading the dialog, or changing the request.
    public var action: CallbackAction {
        switch self {
        case .confirmationWithCode, .confirmationWithoutCode, .confirmation, .startChat, .connectInbound, .connectOutbound, .waitForAgent: .dialog
        case .snooze: .snooze
        case .connect: .confirm
        case .cancel: .cancel
        }
    }
}
