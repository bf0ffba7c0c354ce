import Foundation
import ParleyCore

/// The files that arrived in the terminal, numbered in the order they were shown, for `/save N`.
actor ReceivedFiles {
    private(set) var files: [(attachment: Attachment, conversation: ConversationID)] = []

    /// Numbers a file and says how to keep it: `📎 report.pdf (12.3 KB, application/pdf) — /save 1`.
    func arrived(_ attachment: Attachment, in conversation: ConversationID) -> String {
        if let index = files.firstIndex(where: { $0.attachment.id == attachment.id }) { return Self.line(attachment, number: index + 1) }
        files.append((attachment, conversation))
        return Self.line(attachment, number: files.count)
    }

    /// The file numbered `number`, if there is one.
    func file(_ number: Int) -> (attachment: Attachment, conversation: ConversationID)? {
        files.indices.contains(number - 1) ? files[number - 1] : nil
    }

    static func line(_ attachment: Attachment, number: Int) -> String {
        "file \(attachment.name) (\(attachment.readableSize), \(attachment.contentType)); /save \(number) keeps it"
    }

    /// Where `/save N [PATH]` writes: PATH (a folder gets the file's own name), else the file's
    /// name in the current directory. Only the name's last component is used, so a file named by
    /// its sender cannot reach outside the folder.
    static func destination(for attachment: Attachment, path: String?) -> URL {
        let safeName = URL(fileURLWithPath: attachment.name).lastPathComponent
        guard let path, !path.isEmpty else {
            return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(safeName)
        }
        var isFolder: ObjCBool = false
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            return url.appendingPathComponent(safeName)
        }
        return url
    }

    /// `/save N [PATH]` split into its number and path.
    static func parseSave(_ arguments: String) -> (number: Int, path: String?)? {
        let parts = arguments.split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = parts.first, let number = Int(first) else { return nil }
        return (number, parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : nil)
    }

    /// `/attach PATH [caption]`: the path, then an optional caption after ` -- `.
    static func parseAttach(_ arguments: String) -> (path: String, caption: String)? {
        let parts = arguments.components(separatedBy: " -- ")
        let path = parts[0].trimmingCharacters(in: .whitespaces)
        guard !path.isEmpty else { return nil }
        return ((path as NSString).expandingTildeInPath, parts.dropFirst().joined(separator: " -- ").trimmingCharacters(in: .whitespaces))
    }
}
