#if canImport(WebKit) && canImport(UIKit)
import ParleyCore
import UIKit
import WebKit

/// The visitor chat page in a `WKWebView`, wired to ``ChatBridge``: the ready-made chat screen for
/// an iOS app. It only moves messages between the page and ``ChatBridge``; every rule lives there,
/// tested on Linux.
///
/// ```swift
/// let chat = ParleyChatView(page: ChatPageAddress(configuration), links: ChatLinks(policy: try await client.linkPolicy()))
/// chat.onEvent = { event in if case .chatClosed = event { dismiss() } }
/// ```
@MainActor
public final class ParleyChatView: UIView {
    /// Called for every page event, after the view did its part (opening links outside).
    public var onEvent: ((ChatBridge.PageEvent) -> Void)?
    /// Answers ``ChatBridge/PageEvent/customerDataRequested`` (for verified identity, a user token).
    public var customerData: (() async -> ChatBridge.CustomerData?)?

    public let page: ChatPageAddress
    public var links: ChatLinks
    private let webView: WKWebView
    private let relay = Relay()

    public init(page: ChatPageAddress, links: ChatLinks = ChatLinks()) {
        self.page = page
        self.links = links
        let configuration = WKWebViewConfiguration()
        configuration.websiteDataStore = .default()  // the page's outbox in IndexedDB survives the app
        webView = WKWebView(frame: .zero, configuration: configuration)
        super.init(frame: .zero)
        configuration.userContentController.add(relay, name: ChatBridge.handlerName)
        relay.view = self
        webView.navigationDelegate = relay
        webView.translatesAutoresizingMaskIntoConstraints = false
        addSubview(webView)
        NSLayoutConstraint.activate([
            webView.leadingAnchor.constraint(equalTo: leadingAnchor), webView.trailingAnchor.constraint(equalTo: trailingAnchor),
            webView.topAnchor.constraint(equalTo: topAnchor), webView.bottomAnchor.constraint(equalTo: bottomAnchor),
        ])
        webView.load(URLRequest(url: page.url))
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("ParleyChatView is made in code") }

    /// Makes a call on the page (close the chat, hide its close button, pass customer data, switch language).
    public func call(_ call: ChatBridge.HostCall) {
        webView.evaluateJavaScript(ChatBridge.script(for: call))
    }

    fileprivate func received(_ message: WKScriptMessage) {
        guard let body = try? JSONSerialization.data(withJSONObject: message.body, options: [.fragmentsAllowed]),
              let event = try? ChatBridge.decode(handler: message.name, body: body) else { return }
        switch event {
        case .openURL(let url):
            if case .openOutside(let target) = links.navigation(to: url, from: page) { UIApplication.shared.open(target) }
        case .customerDataRequested:
            if let customerData {
                Task { if let data = await customerData() { call(.customerData(data)) } }
            }
        default:
            break
        }
        onEvent?(event)
    }

    fileprivate func decide(_ url: URL) -> WKNavigationActionPolicy {
        switch links.navigation(to: url, from: page) {
        case .load: return .allow
        case .openOutside(let target):
            UIApplication.shared.open(target)
            return .cancel
        case .cancel: return .cancel
        }
    }

    /// WebKit holds its script handlers strongly; the relay holds the view weakly, so no cycle.
    private final class Relay: NSObject, WKScriptMessageHandler, WKNavigationDelegate {
        weak var view: ParleyChatView?

        func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
            MainActor.assumeIsolated { view?.received(message) }
        }

        func webView(_ webView: WKWebView, decidePolicyFor action: WKNavigationAction,
                     decisionHandler: @escaping @MainActor (WKNavigationActionPolicy) -> Void) {
            guard let url = action.request.url else { return decisionHandler(.cancel) }
            decisionHandler(MainActor.assumeIsolated { view?.decide(url) ?? .cancel })
        }
    }
}
#endif
