import Foundation
import FuzzSupport
import ParleyCore

/// `Timestamp.parse` over any text, and the round trips the wire relies on.
///
/// Checked, whenever `parse(x)` gives a date `d`:
/// - `format(d)` parses again, to a date of the same millisecond, which formats to the same text
///   (text → Date → text is stable, as `Timestamp` documents);
/// - when `x` is already in the form Parley writes (`yyyy-MM-ddTHH:mm:ss.SSSZ`, or without the
///   fraction), `format(d)` gives `x` back (with `.000` added when it had no fraction), and the same
///   text with `+00:00` for `Z` is the same instant;
/// - `ParleyJSON`'s decoder reads the same date from the text as a JSON string, and refuses it
///   exactly when `parse` does.
@_cdecl("LLVMFuzzerTestOneInput")
public func timestampFuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    TimestampFuzzer.check(input.restString())
    return 0
}

enum TimestampFuzzer {
    static let decoder = ParleyJSON.makeDecoder()

    static func check(_ text: String) {
        let date = Timestamp.parse(text)
        decodes(text, as: date)
        guard let date else { return }
        let formatted = Timestamp.format(date)
        guard let again = Timestamp.parse(formatted) else {
            brokenPromise("\(text.debugDescription) parses, but its formatted \(formatted.debugDescription) does not")
        }
        promise(Timestamp.millis(again) == Timestamp.millis(date),
                "\(text.debugDescription) → \(formatted) → \(Timestamp.millis(again)) ms, not \(Timestamp.millis(date))")
        promise(Timestamp.format(again) == formatted, "\(formatted) → \(Timestamp.format(again))")
        if let canonical = canonicalForm(of: text) {
            promise(formatted == canonical, "\(text.debugDescription) is in Parley's form but formats as \(formatted)")
            // The same instant written with an explicit +00:00 takes the other path (Foundation's parser).
            let offset = String(text.dropLast()) + "+00:00"
            let viaOffset = Timestamp.parse(offset)
            promise(viaOffset == nil || viaOffset == date,
                    "\(text) and \(offset) parse \(Timestamp.millis(date) - Timestamp.millis(viaOffset ?? date)) ms apart")
        }
    }

    /// The JSON decoder's date strategy agrees with `parse`.
    static func decodes(_ text: String, as date: Date?) {
        let json = Data(("[" + FrameText.quoted(text) + "]").utf8)
        let decoded = try? decoder.decode([Date].self, from: json)
        promise(decoded?.first == date, "ParleyJSON decodes \(text.debugDescription) as \(String(describing: decoded)), parse as \(String(describing: date))")
    }

    /// For `yyyy-MM-ddTHH:mm:ss[.SSS]Z` (ASCII digits in every place), the text `format` must give
    /// back for it; nil for any other shape.
    static func canonicalForm(of text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 || bytes.count == 24 else { return nil }
        let separators: [Int: UInt8] = [4: UInt8(ascii: "-"), 7: UInt8(ascii: "-"), 10: UInt8(ascii: "T"), 13: UInt8(ascii: ":"),
                                        16: UInt8(ascii: ":"), 19: bytes.count == 24 ? UInt8(ascii: ".") : UInt8(ascii: "Z")]
        for (offset, byte) in bytes.enumerated() {
            if let separator = separators[offset] {
                guard byte == separator else { return nil }
            } else if offset == bytes.count - 1 {
                guard byte == UInt8(ascii: "Z") else { return nil }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            }
        }
        return bytes.count == 24 ? text : String(text.dropLast()) + ".000Z"
    }
}
