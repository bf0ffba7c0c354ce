import ArgumentParser
import Foundation
import ParleyCore

/// `parley admin masking …`: what an app masks in what its visitors and agents write.
struct AdminMasking: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "masking",
        abstract: "Masking: show or change what an app masks (card numbers, SSNs, IBANs, your own patterns).",
        subcommands: [Show.self, Change.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an app's masking rules (the defaults when never set: every built-in on).",
            discussion: """
                Examples:
                  parley admin masking show --app app_01M7ZTMFGRT0845FK7V0KF9X98 --token op-secret
                  parley admin masking show --email agent@demo.parley --password "$PASSWORD" --json
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption

        func validate() throws { try options.requireApp(app) }

        func run() async throws {
            let rules = try await AdminConnection.with(options) { connection in
                try await connection.call(.admin.masking(try connection.app(app)))
            }
            try Output(json: options.json).show(rules, Describe.masking)
        }
    }

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change an app's masking rules: what is not given stays as it is.",
            discussion: """
                The server checks every pattern (it must compile, match at least one character, \
                not match its own replacement, and not risk taking exponential time) and refuses \
                the whole change, naming the rule, when one fails. The replacement is literal text.

                Examples:
                  parley admin masking set --ibans off --token op-secret --app app_01M7ZTMFGRT0845FK7V0KF9X98
                  parley admin masking set --add-rule "Order references" --pattern 'ORD-\\d{6}' \\
                      --replacement 'ORD-••••••' --email agent@demo.parley --password "$PASSWORD"
                  parley admin masking set --remove-rule "Order references" --email agent@demo.parley --password "$PASSWORD"
                  parley admin masking set --file rules.json --token op-secret --app app_01M7ZTMFGRT0845FK7V0KF9X98
                """)
        @OptionGroup var options: AdminOptions
        @OptionGroup var app: AppOption

        @Option(help: ArgumentHelp("Mask Luhn-valid payment card numbers.", valueName: "on|off"), transform: Switch.parse)
        var cardNumbers: Bool?
        @Option(help: ArgumentHelp("Mask US social security numbers (AAA-GG-SSSS).", valueName: "on|off"), transform: Switch.parse)
        var ssns: Bool?
        @Option(help: ArgumentHelp("Mask IBANs whose check digits hold.", valueName: "on|off"), transform: Switch.parse)
        var ibans: Bool?
        @Option(help: ArgumentHelp("Add (or replace) a custom rule by this name; needs --pattern and --replacement.", valueName: "name"))
        var addRule: String?
        @Option(help: ArgumentHelp("The new rule's regular expression (ICU syntax).", valueName: "regex"))
        var pattern: String?
        @Option(help: ArgumentHelp("What each match of the new rule becomes (literal text).", valueName: "text"))
        var replacement: String?
        @Option(help: ArgumentHelp("Remove the custom rule of this name (repeatable).", valueName: "name"))
        var removeRule: [String] = []
        @Option(help: ArgumentHelp("Replace all the rules with this JSON document (- for standard input); the other options then apply to it.",
                                   valueName: "path"))
        var file: String?

        func validate() throws {
            try options.requireApp(app)
            if (addRule == nil) != (pattern == nil) || (addRule == nil) != (replacement == nil) {
                throw ValidationError("--add-rule, --pattern and --replacement go together")
            }
            if cardNumbers == nil, ssns == nil, ibans == nil, addRule == nil, removeRule.isEmpty, file == nil {
                throw ValidationError("nothing to change: give --card-numbers, --ssns, --ibans, --add-rule, --remove-rule or --file")
            }
        }

        func run() async throws {
            let given = try file.map(Self.read)
            let saved = try await AdminConnection.with(options) { connection in
                let app = try connection.app(app)
                var rules: MaskingRules
                if let given { rules = given } else { rules = try await connection.call(.admin.masking(app)) }
                try apply(to: &rules)
                return try await connection.call(.admin.setMasking(app), body: rules)
            }
            try Output(json: options.json).show(saved, Describe.masking)
        }

        /// The options' changes, on top of the rules read (or given in a file).
        func apply(to rules: inout MaskingRules) throws {
            if let cardNumbers { rules.masksCardNumbers = cardNumbers }
            if let ssns { rules.masksSocialSecurityNumbers = ssns }
            if let ibans { rules.masksIBANs = ibans }
            for name in removeRule {
                guard rules.customRules.contains(where: { $0.name == name }) else { throw ValidationError("--remove-rule: no rule is called \"\(name)\"") }
                rules.customRules.removeAll { $0.name == name }
            }
            if let addRule, let pattern, let replacement {
                let rule = CustomMaskingRule(name: addRule, pattern: pattern, replacement: replacement)
                if let index = rules.customRules.firstIndex(where: { $0.name == addRule }) {
                    rules.customRules[index] = rule
                } else {
                    rules.customRules.append(rule)
                }
            }
        }

        static func read(_ path: String) throws -> MaskingRules {
            let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
            guard let data else { throw ValidationError("--file: cannot read \(path)") }
            do {
                return try ParleyJSON.decode(MaskingRules.self, from: data)
            } catch {
                throw ValidationError("--file: not masking rules as JSON (docs/protocol.md, \"Data masking\"): \(error)")
            }
        }
    }
}

/// `on` or `off` (also `true`/`false`, `yes`/`no`).
enum Switch {
    static func parse(_ text: String) throws -> Bool {
        switch text.lowercased() {
        case "on", "true", "yes": true
        case "off", "false", "no": false
        default: throw ValidationError("use on or off, not \(text)")
        }
    }
}

extension Describe {
    static func masking(_ rules: MaskingRules) -> [String] {
        let onOff = { (value: Bool) in value ? "on" : "off" }
        var lines = fields([
            ("card numbers", onOff(rules.masksCardNumbers)), ("US SSNs", onOff(rules.masksSocialSecurityNumbers)), ("IBANs", onOff(rules.masksIBANs)),
            ("custom rules", rules.customRules.isEmpty ? "none" : String(rules.customRules.count)),
        ])
        lines += table(rules.customRules.map { ["  " + $0.name, $0.pattern, "→ " + $0.replacement] })
        return lines
    }
}
