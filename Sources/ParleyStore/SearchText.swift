import Foundation
import ParleyCore

/// How text becomes searchable, the same way in every store (decision 0020).
///
/// Both stores index what ``words(_:)`` makes of a message, never their own parsers: SQLite's FTS5
/// tokenizer and PostgreSQL's text-search parser split and fold text differently (PostgreSQL's
/// depends on the database's locale and keeps an email address as one token), so a search would
/// find different conversations on each. Here a word is a run of letters and digits, folded to
/// lower case without diacritics; the stores only ever see those words.
public enum SearchText {
    /// The most words of one message that are indexed (a message is at most a few thousand
    /// characters; the cap keeps PostgreSQL's tsvector positions within range).
    public static let maxIndexedWords = 4_000
    /// The most terms a query keeps; more only narrow an AND further.
    public static let maxQueryTerms = 8
    /// Longer words are cut to this many characters, in the index and in queries alike.
    public static let maxWordLength = 64

    /// The folded words of a text, in order.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        for range in wordRanges(text) {
            words.append(fold(text[range]))
            if words.count == maxIndexedWords { break }
        }
        return words
    }

    /// What a store indexes for a text: its folded words separated by single spaces.
    public static func indexForm(_ text: String) -> String {
        words(text).joined(separator: " ")
    }

    /// The terms of a query: its folded words, without repeats, at most ``maxQueryTerms``.
    public static func queryTerms(_ query: String) -> [String] {
        var terms: [String] = []
        for word in words(query) where !terms.contains(word) {
            terms.append(word)
            if terms.count == maxQueryTerms { break }
        }
        return terms
    }

    /// Whether a folded word of the text matches a term: a term of two or more characters matches
    /// words starting with it (typing "refu" finds "refund"); a single character only itself.
    public static func matches(word: String, term: String) -> Bool {
        term.count < 2 ? word == term : word.hasPrefix(term)
    }

    /// Lower case without diacritics ("Çağrı" → "cagri"), cut to ``maxWordLength``.
    static func fold(_ word: Substring) -> String {
        let folded = String(word).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        return folded.count > maxWordLength ? String(folded.prefix(maxWordLength)) : folded
    }

    /// The ranges of a text's words: maximal runs of letters and digits (a combining mark stays
    /// with its letter, since a `Character` is a whole grapheme).
    static func wordRanges(_ text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var start: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let isWordCharacter = character.isLetter || character.isNumber
            if isWordCharacter, start == nil { start = index }
            if !isWordCharacter, let begun = start {
                ranges.append(begun..<index)
                start = nil
            }
            index = text.index(after: index)
        }
        if let begun = start { ranges.append(begun..<text.endIndex) }
        return ranges
    }
}
