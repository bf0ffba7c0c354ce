/// Text in several languages, keyed by BCP-47 language tag (`en`, `de`, `pt-BR`, `zh-Hant-TW`).
///
/// ``resolve(_:for:)`` picks one text for a reader's preferred languages, so the server, the SDK and
/// the desk all show the same label for the same preferences.
public enum LocalizedText {
    /// The language used when none of the reader's languages has a text: English.
    public static let fallbackLanguage = "en"

    /// Picks the text for the first preferred language that has one.
    ///
    /// For each preferred tag in order: the exact tag (case-insensitive), then the tag cut back one
    /// subtag at a time (`de-CH-1996` → `de-CH` → `de`), then any text whose primary language is the
    /// same (`pt` finds `pt-BR`; the alphabetically first such tag wins, so the choice is stable).
    /// Failing all of those, ``fallbackLanguage`` by the same rule, then the alphabetically first tag.
    /// Returns nil only when `texts` is empty.
    public static func resolve(_ texts: [String: String], for preferred: [String]) -> String? {
        if texts.isEmpty { return nil }
        var byLowercasedTag: [String: String] = [:]
        for tag in texts.keys.sorted() { byLowercasedTag[tag.lowercased()] = byLowercasedTag[tag.lowercased()] ?? texts[tag] }
        for tag in preferred + [fallbackLanguage] {
            var subtags = tag.lowercased().split(separator: "-").map(String.init)
            while !subtags.isEmpty {
                if let text = byLowercasedTag[subtags.joined(separator: "-")] { return text }
                subtags.removeLast()
            }
            guard let primary = tag.lowercased().split(separator: "-").first.map(String.init) else { continue }
            if let match = byLowercasedTag.keys.sorted().first(where: { $0.hasPrefix(primary + "-") }) {
                return byLowercasedTag[match]
            }
        }
        return texts.keys.sorted().first.flatMap { texts[$0] }
    }

    /// True when `tag` is shaped like a BCP-47 tag: a 2–8 letter primary subtag, then subtags of
    /// 1–8 letters or digits, joined by `-`. Registry membership is not checked.
    public static func isWellFormedTag(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = subtags.first, (2...8).contains(primary.count),
              primary.unicodeScalars.allSatisfy({ $0.isASCIILetter })
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit }
        }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
