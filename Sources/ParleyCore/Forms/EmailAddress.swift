/// The email addresses forms accept: a practical subset of RFC 5321/5322 that real mail systems deliver to.
///
/// Accepted: `local@domain`, exactly one `@`, at most ``Limits/maxEmailLength`` characters in all.
/// - The local part is 1–64 characters of letters, digits and the characters `!#$%&'*+/=?^_{|}~-` (and the backtick) in dot-separated
///   runs (a dot-atom): no leading, trailing or doubled dot. Its case is kept (RFC 5321 lets the
///   receiving host decide).
/// - The domain is at most 253 characters of two or more dot-separated labels, each 1–63 letters,
///   digits and hyphens, not starting or ending with a hyphen, the last not all digits. It is lowercased.
///
/// Rejected although RFC 5322 allows them: quoted local parts (`"a b"@x.org`), comments, IP-address
/// literals (`a@[192.0.2.1]`), single-label domains (`a@localhost`), a trailing root dot, and non-ASCII
/// characters anywhere (internationalised domains must be written in their `xn--` form).
public enum EmailAddress {
    static let localSymbols = Set("!#$%&'*+/=?^_`{|}~-".unicodeScalars)

    /// The address with surrounding whitespace removed and its domain lowercased, or nil when it is not accepted.
    public static func normalize(_ text: String) -> String? {
        let address = text.trimmingWhitespace()
        guard address.count <= Limits.maxEmailLength,
              address.unicodeScalars.allSatisfy(\.isASCII)
        else { return nil }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, isDotAtom(parts[0]), parts[0].count <= 64, isDomain(parts[1]) else { return nil }
        return parts[0] + "@" + parts[1].lowercased()
    }

    static func isDotAtom(_ local: Substring) -> Bool {
        let runs = local.split(separator: ".", omittingEmptySubsequences: false)
        return !local.isEmpty && runs.allSatisfy { run in
            !run.isEmpty && run.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || localSymbols.contains($0) }
        }
    }

    static func isDomain(_ domain: Substring) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard domain.count <= 253, labels.count >= 2,
              let last = labels.last, !last.unicodeScalars.allSatisfy(\.isASCIIDigit)
        else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "-" }
        }
    }
}
