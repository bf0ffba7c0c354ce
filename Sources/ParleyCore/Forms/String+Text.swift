// Text helpers shared by form validation and transcripts.

extension StringProtocol {
    /// Without leading and trailing white space and line breaks (Unicode's White_Space property).
    func trimmingWhitespace() -> String {
        let scalars = Array(unicodeScalars)
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[first...last])
        return String(result)
    }
}

extension String {
    /// With CRLF and lone CR written as LF.
    func replacingLineBreaks() -> String { String(map { $0.isNewline ? "\n" : $0 }) }
}
