import ArgumentParser
import Foundation
import ParleyKit
import ParleyKitNIO

/// `--server`: which parleyd to talk to. Shared by every command.
struct ServerOptions: ParsableArguments {
    /// Where parleyd listens when nothing else is said: its own default.
    static let defaultServer = "http://127.0.0.1:8080"

    @Option(name: .customLong("server"), help: ArgumentHelp(
        "The server's base URL (env PARLEY_SERVER; default \(ServerOptions.defaultServer)).", valueName: "url"))
    var serverFlag: String?

    /// The server URL: the flag, else `PARLEY_SERVER`, else the default.
    var serverURL: URL {
        get throws {
            let text = serverFlag ?? ProcessInfo.processInfo.environment["PARLEY_SERVER"] ?? Self.defaultServer
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host?.isEmpty == false
            else { throw ValidationError("--server: \(text) is not an http:// or https:// URL") }
            return url
        }
    }

    @Option(name: .customLong("pin"), help: ArgumentHelp(
        "A pinned server key: base64 SHA-256 of its SubjectPublicKeyInfo; repeat for a backup key. Needs https.", valueName: "sha256"))
    var pinFlags: [String] = []

    @Option(name: .customLong("ca-file"), help: ArgumentHelp(
        "A PEM file of root certificates trusted besides the system's (a private CA).", valueName: "path"))
    var caFile: String?

    /// The pinned keys of `--pin`.
    var pinnedKeys: [PublicKeyPin] {
        get throws {
            try pinFlags.map { pin in
                do { return try PublicKeyPin(base64: pin) } catch { throw ValidationError("--pin: \(pin) is not a base64 SHA-256 (32 bytes)") }
            }
        }
    }

    /// The roots trusted: the system's and `--ca-file`'s.
    var trust: TLSTrust {
        get throws {
            guard let caFile else { return .system }
            guard let text = try? String(contentsOfFile: caFile, encoding: .utf8) else { throw ValidationError("--ca-file: cannot read \(caFile)") }
            let blocks = text.components(separatedBy: "-----END CERTIFICATE-----").dropLast()
                .map { $0 + "-----END CERTIFICATE-----" }
                .compactMap { block in block.range(of: "-----BEGIN CERTIFICATE-----").map { String(block[$0.lowerBound...]) } }
            guard !blocks.isEmpty else { throw ValidationError("--ca-file: no PEM certificate in \(caFile)") }
            do { return try TLSTrust(additionalRootsPEM: blocks) } catch { throw ValidationError("--ca-file: \(error)") }
        }
    }

    /// HTTP for every command: SwiftNIO, so that `--pin` and `--ca-file` hold on Linux too.
    var httpTransport: NIOHTTPTransport { get throws { NIOHTTPTransport(trust: try trust) } }

    /// The realtime transport, with the same trust.
    var realtimeTransport: NIOWebSocketTransport { get throws { NIOWebSocketTransport(trust: try trust) } }

    func validate() throws {
        let url = try serverURL
        let pins = try pinnedKeys
        if !pins.isEmpty && url.scheme?.lowercased() != "https" { throw ValidationError("--pin needs an https:// server") }
        _ = try trust
    }
}
