extension Transcript {
    /// The transcript as a standalone HTML document to save, print or share.
    ///
    /// The document is UTF-8 (`<meta charset>`), styles itself inline with a print style sheet, and
    /// holds no script; its Content-Security-Policy allows nothing but inline styles, so even a
    /// mistake in escaping could not load or run anything. Every piece of user text — messages,
    /// names, ids, the subject, the title, the language tag — passes through ``escapeHTML(_:)``,
    /// in element content and in attribute values alike.
    public func html(options: Options = Options()) -> String {
        let escape = Self.escapeHTML
        var items: [String] = []
        for line in lines {
            let time = "<time datetime=\"\(escape(Timestamp.format(line.time)))\">\(escape(Self.format(line.time, in: options.timeZone)))</time>"
            switch line.content {
            case .message(let author, let text):
                items.append("""
                <li class="message \(escape(author.role.rawValue))">\(time) <span class="author" title="\(escape(author.id ?? author.role.rawValue))">\(escape(Self.displayName(of: author)))</span>
                <p class="text">\(escape(text.replacingLineBreaks()))</p></li>
                """)
            case .notice(let notice):
                items.append("<li class=\"notice\">\(time) <span>\(escape(notice))</span></li>")
            }
        }
        var meta = ["Conversation <code>\(escape(conversation.id.rawValue))</code>", "times in \(escape(Self.zoneName(options.timeZone)))"]
        if let subject = conversation.subject, !subject.isEmpty { meta.insert("Subject: \(escape(subject))", at: 0) }
        return """
        <!DOCTYPE html>
        <html lang="\(escape(options.language))">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
        <title>\(escape(options.title))</title>
        <style>\(Self.styleSheet)</style>
        </head>
        <body>
        <header><h1>\(escape(options.title))</h1>
        <p class="meta">\(meta.joined(separator: " · "))</p></header>
        <ol class="transcript">
        \(items.joined(separator: "\n"))
        </ol>
        </body>
        </html>

        """
    }

    /// Escapes `&`, `<`, `>`, `"` and `'`, which makes text safe in element content and in quoted
    /// attribute values.
    public static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static let styleSheet = """
    body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;background:#fff;max-width:46rem;margin:2rem auto;padding:0 1rem}\
    h1{font-size:1.4rem;margin:0 0 .25rem}.meta{color:#555;margin:0 0 1.5rem}\
    ol{list-style:none;margin:0;padding:0}li{margin:0 0 .75rem;break-inside:avoid}\
    time{color:#666;font-variant-numeric:tabular-nums;margin-right:.5rem}.author{font-weight:600}\
    .text{margin:.15rem 0 0;white-space:pre-wrap;overflow-wrap:anywhere}\
    .message.agent .author{color:#0b5cad}.notice{color:#555;font-style:italic}\
    @media print{body{margin:0;max-width:none;font-size:11pt}.message.agent .author{color:#000}a{color:inherit}}
    """
}
