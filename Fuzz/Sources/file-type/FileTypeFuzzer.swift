import Foundation
import FuzzSupport
import ParleyCore

/// `FileType.sniff` over an upload's first bytes, and `FileType.decide` with a name and a declared type.
///
/// Input: a byte choosing the file name's extension, a byte choosing the declared type, then the
/// file's first bytes.
///
/// Checked:
/// - `sniff` names one of the types it knows, reads only the first `sniffLength` bytes, and gives
///   the same answer for an array, for `Data`, and for a slice that does not start at index 0;
/// - `text/plain` is only said of bytes without NUL that are UTF-8 (but for a cut last sequence);
/// - `decide` returns the sniffed type or one of its refinements (a zip named `.docx`), never
///   refuses a name or declared type that agrees with the bytes, and a refusal names what the
///   bytes are.
@_cdecl("LLVMFuzzerTestOneInput")
public func fileTypeFuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    let name = input.pick(FileTypeFuzzer.names)
    let declared = input.pick(FileTypeFuzzer.declaredTypes)
    FileTypeFuzzer.check(head: Array(input.rest()), name: name, declared: declared)
    return 0
}

enum FileTypeFuzzer {
    /// Every type `sniff` may name.
    static let sniffable: Set<String> = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "application/zip", "audio/ogg", "audio/mpeg",
        "image/heic", "video/quicktime", "audio/mp4", "video/mp4", "application/x-msdownload", "application/x-executable",
        "application/x-mach-binary", "application/gzip", "application/x-7z-compressed", "application/vnd.rar", "image/svg+xml",
        "text/html", "text/plain", FileType.unknown,
    ]

    /// The types the bytes of a type may be refined to (FileType.refinements).
    static let refinements: [String: Set<String>] = [
        "application/zip": [
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ],
        "text/plain": ["text/csv"],
        "video/mp4": ["audio/mp4"],
    ]

    static let names = [
        "file", "photo.png", "photo.JPG", "scan.jpeg", "a.gif", "a.webp", "a.heic", "a.heif", "doc.pdf", "notes.txt", "app.log",
        "README.md", "data.csv", "archive.zip", "letter.docx", "sheet.xlsx", "slides.pptx", "song.mp3", "voice.m4a", "a.ogg",
        "a.oga", "clip.mp4", "clip.m4v", "clip.mov", "setup.exe", "lib.dll", "page.html", "page.htm", "logo.svg", "a.tar.gz",
        "a.7z", "a.rar", ".png", "invoice.pdf.exe", "weird.", "no-extension", "UPPER.PDF", "émoji😀.png",
    ]

    static let declaredTypes: [String?] = [
        nil, "", "application/octet-stream", "application/x-www-form-urlencoded", "image/png", "image/jpeg", "image/jpg",
        "image/pjpeg", "image/gif", "image/webp", "image/heic", "image/heif", "application/pdf", "text/plain",
        "text/plain; charset=utf-8", "text/csv", " TEXT/CSV ; charset=utf-8", "application/zip", "application/x-zip-compressed",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "audio/mpeg", "audio/mp3", "audio/mp4",
        "audio/x-m4a", "video/mp4", "video/quicktime", "text/html", "image/svg+xml", "application/x-msdownload", ";", " ",
        "application/gzip",
    ]

    static func check(head: [UInt8], name: String, declared: String?) {
        let sniffed = FileType.sniff(head)
        promise(sniffable.contains(sniffed), "sniff named an unknown type \(sniffed)")
        promise(FileType.sniff(head.prefix(FileType.sniffLength)) == sniffed, "sniff read beyond \(FileType.sniffLength) bytes")
        promise(FileType.sniff(Data(head)) == sniffed, "sniff of Data differs from sniff of [UInt8]")
        let shifted = [0x42] + head
        promise(FileType.sniff(shifted.dropFirst()) == sniffed, "sniff of a slice from index 1 differs")
        if sniffed == "text/plain" {
            let sample = Array(head.prefix(FileType.sniffLength))
            promise(!sample.contains(0), "text/plain with a NUL byte")
            promise((0...min(3, sample.count - 1)).contains { String(validating: sample.dropLast($0), as: UTF8.self) != nil },
                    "text/plain that is not UTF-8")
        }
        decides(head: head, sniffed: sniffed, name: name, declared: declared)
    }

    static func decides(head: [UInt8], sniffed: String, name: String, declared: String?) {
        let allowed = refinements[sniffed, default: []].union([sniffed])
        do {
            let decided = try FileType.decide(head: head, name: name, declared: declared)
            promise(allowed.contains(decided), "decide gave \(decided) for bytes of \(sniffed) (name \(name), declared \(String(describing: declared)))")
        } catch {
            promise(error.sniffed == sniffed || refinements[sniffed]?.contains(error.sniffed) == true,
                    "a refusal says the bytes are \(error.sniffed), sniff says \(sniffed)")
            promise(error.source == "name" || error.source == "content_type", "a refusal from \(error.source)")
            let named = FileType.type(ofName: name)
            promise(!(named == nil && declared == nil), "refused \(sniffed) with neither a known name nor a declared type: \(error.message)")
            promise(!(named == sniffed && (declared == nil || declared == sniffed)), "refused \(sniffed) named and declared as itself")
        }
    }
}
