import Foundation
import ParleyCore
import ParleyKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `parley chat --push-demo URL`: this terminal registers as an FCM device with its own push keys,
/// and prints every push a local provider fake (`Tests/Push/fake_providers.py`, whose control API
/// is at `URL`) received for it: what went over the wire (sealed; the provider saw only the
/// conversation id) and what the phone would show once its extension decrypted it. For demos of
/// what a push carries, without a phone.
struct PushDemo {
    let controlURL: URL
    let keys = PushKeys()
    let token = "parley-chat-demo-" + UUID().uuidString.lowercased()

    /// Registers the device; returns the line saying so.
    func register(_ client: ParleyClient) async throws -> String {
        let device = try await client.setPushToken(token, provider: .fcm, encryption: .keys(keys))
        return "· push demo: registered as an FCM device (\(device.encrypted ? "encrypted" : "in the clear")); pushes the provider fake got for it are shown here"
    }

    /// Prints each new push for this device as it reaches the fake, until cancelled. A demo's
    /// polling: a request every half second to the fake's control API.
    func watch() async {
        var seen = 0
        var url = URLComponents(url: controlURL.appendingPathComponent("requests"), resolvingAgainstBaseURL: false)!
        url.queryItems = [URLQueryItem(name: "provider", value: "fcm")]
        while !Task.isCancelled {
            if let (data, _) = try? await URLSession.shared.data(from: url.url!),
               let records = try? JSONDecoder().decode([Record].self, from: data) {
                let mine = records.filter { $0.token == token }
                for record in mine.dropFirst(seen) { TerminalIO.say(describe(record)) }
                seen = max(seen, mine.count)
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    /// One push, as the wire had it and as the phone would show it.
    func describe(_ record: Record) -> String {
        guard let body = try? JSONSerialization.jsonObject(with: Data(record.body.utf8)) as? [String: Any],
              let message = body["message"] as? [String: Any], let data = message["data"] as? [String: String]
        else { return "· push (HTTP \(record.status)): not a Parley push" }
        let sealed = data["parley"].flatMap { try? ParleyJSON.decode(PushEnvelope.self, from: Data($0.utf8)) }?.encrypted != nil
        let wire = "\(record.body.count) bytes to the provider, content \(sealed ? "sealed" : "in the clear")"
        do {
            let content = try ParleyPush.decryptNotification(data, keys: keys)
            let badge = content.badge.map { " · badge \($0)" } ?? ""
            return "· push (\(wire), HTTP \(record.status)): \(content.title) — \(content.body ?? "") [\(content.kind.rawValue)\(badge) · opens \(content.conversationID)]"
        } catch {
            return "· push (\(wire), HTTP \(record.status)): cannot be read: \(error)"
        }
    }

    /// What the fake recorded (the members the demo reads).
    struct Record: Decodable {
        var body: String
        var status: Int
        var token: String?
    }
}
