extension Transcript {
    /// The transcript as plain text: a header, then one line per message or notice.
    ///
    ///     Conversation transcript
    ///     Subject: Order 1234
    ///     Times in Europe/Berlin
    ///
    ///     [2026-03-29 14:05] Ann: Hello
    ///         a second line of the same message
    ///     [2026-03-29 14:06] * Bob joined
    ///
    /// Control characters other than line breaks and tabs (terminal escapes, say) become U+FFFD, so
    /// printing a transcript cannot drive a terminal.
    public func plainText(options: Options = Options()) -> String {
        var output = [Self.printable(options.title)]
        if let subject = conversation.subject, !subject.isEmpty { output.append("Subject: \(Self.printable(subject))") }
        output.append("Times in \(Self.zoneName(options.timeZone))")
        output.append("")
        for line in lines {
            let time = "[\(Self.format(line.time, in: options.timeZone))]"
            switch line.content {
            case .message(let author, let text):
                let body = Self.printable(text).split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
                output.append("\(time) \(Self.printable(Self.displayName(of: author))): \(body)")
            case .notice(let notice):
                output.append("\(time) * \(Self.printable(notice))")
            }
        }
        return output.joined(separator: "\n") + "\n"
    }

    static func printable(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.replacingLineBreaks().unicodeScalars {
            let isControl = scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t"
            scalars.append(isControl ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }
}
