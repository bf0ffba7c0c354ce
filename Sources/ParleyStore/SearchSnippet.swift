import Foundation
import ParleyCore

/// Cuts a snippet around a text's matching words and marks them, the same way for every store:
/// the words are found with ``SearchText``'s rules, so what is marked is what was matched.
public enum SearchSnippet {
    /// Characters of context kept before the first match.
    public static let leadingContext = 40
    /// The longest snippet, in characters, before the ellipses.
    public static let maxLength = 180

    /// The text, or a window of it, with its words that match one of the terms marked.
    /// Returns nil when no word matches.
    public static func make(_ text: String, terms: [String]) -> (snippet: String, highlights: [TextRange])? {
        let matching = SearchText.wordRanges(text).filter { range in
            let word = SearchText.fold(text[range])
            return terms.contains { SearchText.matches(word: word, term: $0) }
        }
        guard let first = matching.first else { return nil }
        let start = text.index(first.lowerBound, offsetBy: -leadingContext, limitedBy: text.startIndex) ?? text.startIndex
        let windowStart = start == text.startIndex ? start : wordStart(in: text, atOrAfter: start, before: first.lowerBound)
        let end = text.index(windowStart, offsetBy: maxLength, limitedBy: text.endIndex) ?? text.endIndex
        let prefix = windowStart > text.startIndex ? "…" : ""
        let suffix = end < text.endIndex ? "…" : ""
        let snippet = prefix + text[windowStart..<end] + suffix
        let base = prefix.utf16.count
        let highlights = matching.compactMap { range -> TextRange? in
            guard range.lowerBound >= windowStart, range.lowerBound < end else { return nil }
            let clipped = range.lowerBound..<min(range.upperBound, end)
            return TextRange(start: base + text.utf16.distance(from: windowStart, to: clipped.lowerBound),
                             length: text.utf16.distance(from: clipped.lowerBound, to: clipped.upperBound))
        }
        return (snippet, highlights)
    }

    /// A window starts at a word, so the snippet never opens in the middle of one.
    private static func wordStart(in text: String, atOrAfter index: String.Index, before limit: String.Index) -> String.Index {
        var cursor = index
        let isWord = { (character: Character) in character.isLetter || character.isNumber }
        if !isWord(text[text.index(before: cursor)]) { return cursor }
        while cursor < limit, text[cursor].isLetter || text[cursor].isNumber { cursor = text.index(after: cursor) }
        while cursor < limit, !(text[cursor].isLetter || text[cursor].isNumber) { cursor = text.index(after: cursor) }
        return cursor
    }
}
