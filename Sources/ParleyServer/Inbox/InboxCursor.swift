import Foundation
import ParleyCore
import ParleyStore

/// Where the next page of an inbox view starts: an offset into an open view, or the last
/// conversation's position in activity order for history.
enum InboxCursor: Sendable, Hashable {
    case offset(Int)
    case position(ConversationSearchPosition)

    init?(_ text: String) {
        switch PageCursorText.decode(text) {
        case ("o", let fields)?:
            guard let offset = PageCursorText.offset(fields) else { return nil }
            self = .offset(offset)
        case ("p", let fields)?:
            guard let position = PageCursorText.position(fields) else { return nil }
            self = .position(position)
        default:
            return nil
        }
    }

    var text: String {
        switch self {
        case .offset(let offset): PageCursorText.encode("o", PageCursorText.offsetFields(offset))
        case .position(let position): PageCursorText.encode("p", PageCursorText.positionFields(position))
        }
    }
}
