import Foundation
import ParleyCore

/// The app's tag list: what agents may put on conversations.
extension AppSettings {
    static let tagsKey = "tags"
    /// The most tags an app offers.
    static let maxTags = 100

    /// The app's tags (none when never set).
    func tags(app: AppID) async throws -> TagList {
        try await read(TagList.self, Self.tagsKey, app: app) ?? TagList(tags: [])
    }

    /// Checks and stores the app's tags. Conversations keep tags removed from the list (history
    /// stays as it was); agents can no longer add them.
    /// - Throws: 400 naming the tag at fault.
    func setTags(_ list: TagList, app: AppID) async throws {
        guard list.tags.count <= Self.maxTags else { throw APIError.badRequest("tags: at most \(Self.maxTags)") }
        var seen = Set<String>()
        for (index, tag) in list.tags.enumerated() {
            let name = tag.name
            guard (1...40).contains(name.count), name.trimmingCharacters(in: .whitespaces) == name,
                  name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || " -_".unicodeScalars.contains($0) })
            else { throw APIError.badRequest("tags[\(index)].name: 1 to 40 letters, digits, spaces, - or _, no space at either end") }
            guard seen.insert(name.lowercased()).inserted else { throw APIError.badRequest("tags[\(index)].name: \(name) is listed twice") }
            guard tag.color.count == 7, tag.color.first == "#", tag.color.dropFirst().allSatisfy(\.isHexDigit)
            else { throw APIError.badRequest("tags[\(index)].color: #rrggbb") }
        }
        try await write(list, Self.tagsKey, app: app)
    }
}
