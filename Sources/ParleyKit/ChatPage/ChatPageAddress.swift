import Foundation
import ParleyCore

/// The address of an app's visitor chat page on its Parley server:
/// `https://chat.example.com/chat/?app=app_…&queue=que_…&locale=de&theme=dark`.
public struct ChatPageAddress: Hashable, Sendable {
    /// The page's colours: the app's own, or forced light or dark.
    public enum Theme: String, Hashable, Sendable {
        case light, dark
    }

    public var serverURL: URL
    public var appID: AppID
    /// The queue (Cisco's entry point) the chat starts in; nil for the app's first queue.
    public var queueID: QueueID?
    /// The page's language (`en`, `de`); nil for the browser's.
    public var locale: String?
    /// nil follows the system's light or dark setting.
    public var theme: Theme?

    public init(serverURL: URL, appID: AppID, queueID: QueueID? = nil, locale: String? = nil, theme: Theme? = nil) {
        self.serverURL = serverURL
        self.appID = appID
        self.queueID = queueID
        self.locale = locale
        self.theme = theme
    }

    /// The page for a configured client: its server, app and default queue.
    public init(_ configuration: ParleyConfiguration, locale: String? = nil, theme: Theme? = nil) {
        self.init(serverURL: configuration.serverURL, appID: configuration.appID, queueID: configuration.defaultQueueID,
                  locale: locale, theme: theme)
    }

    /// The page's URL.
    public var url: URL {
        var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        let base = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = base + "/chat/"
        var items = [URLQueryItem(name: "app", value: appID.rawValue)]
        if let queueID { items.append(URLQueryItem(name: "queue", value: queueID.rawValue)) }
        if let locale { items.append(URLQueryItem(name: "locale", value: locale)) }
        if let theme { items.append(URLQueryItem(name: "theme", value: theme.rawValue)) }
        components.queryItems = items
        return components.url ?? serverURL
    }

    /// True when `url` is on the chat page's own origin (its scheme, host and port): what a web
    /// view lets load in place; everything else goes through the `LinkPolicy`.
    public func isSameOrigin(_ url: URL) -> Bool {
        url.scheme?.lowercased() == serverURL.scheme?.lowercased() && url.host?.lowercased() == serverURL.host?.lowercased()
            && Self.port(of: url) == Self.port(of: serverURL)
    }

    private static func port(of url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
