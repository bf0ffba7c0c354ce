import Foundation
import ParleyCore
import ParleyStore

/// The next moment a callback request changes by itself, and the step the server commits then:
/// an offer expires at its `expires_at`, a scheduled request is due at its `scheduled_until`.
struct CallbackDeadline: Hashable, Sendable {
    var at: Date
    var step: ConversationChange.CallbackUpdate.Step

    /// The request's deadline; nil while it waits, connects or after it ended.
    init?(_ request: Callback) {
        switch request.state {
        case .offered(_, let expiresAt): self.init(at: expiresAt, step: .expire)
        case .scheduled(let until): self.init(at: until, step: .due)
        case .waiting, .connecting, .ended: return nil
        }
    }

    init(at: Date, step: ConversationChange.CallbackUpdate.Step) {
        self.at = at
        self.step = step
    }
}
