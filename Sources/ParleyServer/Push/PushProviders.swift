import Foundation
import ParleyCore

/// What a provider's answer means for the push and the device.
enum PushVerdict: Equatable {
    case delivered
    /// The token is no longer the device's (APNs 410 / `BadDeviceToken`, FCM `UNREGISTERED`):
    /// the device is removed and the push given up.
    case tokenGone
    /// The provider refused our token for it (expired, revoked): forget it and try again.
    case credentialsRefused
    /// Busy or failing (429, 5xx): try again later.
    case retry
    /// Refused for good (a bad topic, a payload the provider rejects).
    case failed
}

/// Reads the providers' answers (Apple's "Handling notification responses from APNs", Google's
/// FCM v1 error codes).
enum PushAnswers {
    static func apns(status: Int, body: Data) -> PushVerdict {
        let reason = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["reason"] as? String
        switch status {
        case 200: return .delivered
        case 410: return .tokenGone
        case 400 where reason == "BadDeviceToken": return .tokenGone
        case 403 where reason == "ExpiredProviderToken" || reason == "InvalidProviderToken": return .credentialsRefused
        case 429, 500...599: return .retry
        default: return .failed
        }
    }

    static func fcm(status: Int, body: Data) -> PushVerdict {
        let error = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? [String: Any]
        let codes = ((error?["details"] as? [[String: Any]]) ?? []).compactMap { $0["errorCode"] as? String }
        switch status {
        case 200: return .delivered
        case 404 where codes.contains("UNREGISTERED"), 400 where codes.contains("UNREGISTERED"): return .tokenGone
        case 401: return .credentialsRefused
        case 429, 500...599: return .retry
        default: return .failed
        }
    }
}
