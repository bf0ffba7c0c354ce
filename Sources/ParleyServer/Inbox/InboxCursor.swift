import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Where the next page of an inbox view starts: an offset into an open view, or the last
/// conversation's position in activity order for history.
enum InboxCursor: Sendable, Hashable {
    case offset(Int)
    case position(ConversationSearchPosition)

    init?(_ text: String) {
        guard let data = Data(base64URLEncoded: text), let plain = String(data: data, encoding: .utf8) else { return nil }
        let parts = plain.split(separator: ":", omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("o", 2):
            guard let offset = Int(parts[1]), offset > 0, offset <= 1_000_000 else { return nil }
            self = .offset(offset)
        case ("p", 3):
            guard let millis = Int64(parts[1]), let id = ConversationID(validating: String(parts[2])) else { return nil }
            self = .position(.init(updatedAt: Timestamp.date(millis: millis), id: id))
        default:
            return nil
        }
    }

    var text: String {
        let plain = switch self {
        case .offset(let offset): "o:\(offset)"
        case .position(let position): "p:\(Timestamp.millis(position.updatedAt)):\(position.id.rawValue)"
        }
        return Data(plain.utf8).base64URLEncoded
    }
}
