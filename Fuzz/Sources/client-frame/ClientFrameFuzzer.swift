import Foundation
import FuzzSupport
import ParleyCore

/// A WebSocket text frame into a ``ClientFrame``, read exactly as `RealtimeSession.readLoop` reads it:
/// the socket validates UTF-8 (`validateUTF8: true`), then `ClientFrame.fastSend(text)` with
/// `ParleyJSON`'s decoder behind it.
///
/// Checked:
/// - Nothing but `FrameTypeError` and `DecodingError` is thrown (the session answers those with an
///   error frame; anything else would end the socket).
/// - What `fastSend` accepts, `JSONDecoder` reads to the same frame (FlatJSON's promise).
/// - A decoded frame encodes with `ParleyJSON` and decodes back to itself; a `send` encoded so is
///   read by `fastSend` too.
/// - `FrameText.quoted` writes each string of the frame byte for byte as `JSONEncoder` does.
@_cdecl("LLVMFuzzerTestOneInput")
public func clientFrameFuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    guard let text = String(validating: input.bytes, as: UTF8.self) else { return 0 }
    ClientFrameFuzzer.check(text)
    return 0
}

enum ClientFrameFuzzer {
    /// One decoder for every frame, as a session makes one for its socket.
    static let decoder = ParleyJSON.makeDecoder()

    static func check(_ text: String) {
        let fast = ClientFrame.fastSend(text)
        let general: Result<ClientFrame, any Error> = Result { try decoder.decode(ClientFrame.self, from: Data(text.utf8)) }
        if let fast {
            guard case .success(let frame) = general else {
                brokenPromise("fastSend read \(fast) from \(text.debugDescription), JSONDecoder refused it: \(general)")
            }
            promise(frame == fast, "fastSend read \(fast), JSONDecoder \(frame), from \(text.debugDescription)")
        }
        let frame: ClientFrame
        switch general {
        case .success(let decoded):
            frame = decoded
        case .failure(let error):
            promise(error is FrameTypeError || error is DecodingError, "decoding threw \(type(of: error)): \(error)")
            return
        }
        roundTrip(frame)
        for string in strings(of: frame) {
            quotes(string)
        }
    }

    /// Encoded and decoded again, the frame is the same; a plain `send` takes the fast path back.
    static func roundTrip(_ frame: ClientFrame) {
        let encoded: Data
        do {
            encoded = try ParleyJSON.encode(frame)
        } catch {
            brokenPromise("a decoded frame does not encode: \(frame): \(error)")
        }
        let again = try? decoder.decode(ClientFrame.self, from: encoded)
        promise(again == frame, "\(frame) encoded as \(String(decoding: encoded, as: UTF8.self)) decodes as \(String(describing: again))")
        if case .send = frame {
            let text = String(decoding: encoded, as: UTF8.self)
            let fast = ClientFrame.fastSend(text)
            promise(fast == frame, "fastSend reads \(String(describing: fast)) from the encoded \(text.debugDescription)")
        }
    }

    /// `FrameText.quoted` is what `JSONEncoder` with `ParleyJSON`'s settings writes for the string.
    static func quotes(_ string: String) {
        guard let encoded = try? ParleyJSON.encode([string]) else { brokenPromise("a string does not encode: \(string.debugDescription)") }
        let expected = String(decoding: encoded, as: UTF8.self)
        let quoted = "[" + FrameText.quoted(string) + "]"
        promise(quoted == expected, "FrameText.quoted wrote \(quoted.debugDescription), JSONEncoder \(expected.debugDescription)")
    }

    /// Every free-text string a frame carries.
    static func strings(of frame: ClientFrame) -> [String] {
        switch frame {
        case .subscribe(let subscribe): [subscribe.epoch].compactMap { $0 }
        case .send(let send): [send.ref, send.clientMessageID, send.text].compactMap { $0 }
        case .read(let read): [read.ref].compactMap { $0 }
        case .ping(let ping): [ping.ref].compactMap { $0 }
        case .unsubscribe, .typing: []
        }
    }
}
