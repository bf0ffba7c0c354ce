import Foundation
import ParleyCore

/// What a chat view does with a link: the app's `LinkPolicy` (from ``ParleyClient/linkPolicy()``),
/// which the app may override for some links (its own deep links, say).
///
/// The chat page applies the same policy before it asks the app to open anything; the web view
/// asks again for every navigation, so a page that misbehaves still cannot leave the allow-list.
public struct ChatLinks: Sendable {
    public var policy: LinkPolicy
    /// The app's last word on a link: return a decision to replace the policy's, nil to keep it.
    public var override: (@Sendable (URL, LinkPolicy.Decision) -> LinkPolicy.Decision?)?

    public init(policy: LinkPolicy = .defaults, override: (@Sendable (URL, LinkPolicy.Decision) -> LinkPolicy.Decision?)? = nil) {
        self.policy = policy
        self.override = override
    }

    /// The decision for `url`. A link that is not a web link stays `LinkPolicy.Decision.ignore`
    /// whatever the override says: `javascript:` and `file:` are never followed.
    public func decide(_ url: URL) -> LinkPolicy.Decision {
        let decided = policy.decide(url.absoluteString)
        guard decided != .ignore, let override, let replaced = override(url, decided) else { return decided }
        return replaced == .openInside || replaced == .openOutside || replaced == .block ? replaced : decided
    }

    /// What a web view showing the chat page at `page` does with a navigation to `url`: load it
    /// in place (the page itself and allow-listed hosts), hand it to the system, or refuse it.
    public func navigation(to url: URL, from page: ChatPageAddress) -> Navigation {
        if page.isSameOrigin(url) { return .load }
        switch decide(url) {
        case .openInside: return .load
        case .openOutside: return .openOutside(url)
        case .block, .ignore: return .cancel
        }
    }

    /// What a web view does with a navigation.
    public enum Navigation: Hashable, Sendable {
        case load
        case openOutside(URL)
        case cancel
    }
}
