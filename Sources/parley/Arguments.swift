import ArgumentParser
import ParleyCore

// Parsing and checking of argument values, before anything is sent: a malformed value is a usage
// error (exit 64) on the spot rather than a round trip and a server error.

/// Why an argument value was refused; ArgumentParser shows it after "The value … is invalid".
struct ArgumentProblem: Error, CustomStringConvertible {
    let description: String
}

extension Identifier {
    /// Parses an id argument (`app_…`, `que_…`, `agt_…`), for `@Option(transform:)`.
    static func argument(_ text: String) throws -> Self {
        guard let id = Self(validating: text) else {
            throw ArgumentProblem(description: "an id here is \(Kind.prefix)_ followed by 26 characters, as the server prints it")
        }
        return id
    }
}

extension AgentRole: ExpressibleByArgument {}
extension Availability: ExpressibleByArgument {}
extension CallbackKind: ExpressibleByArgument {}
extension CallbackOutcome: ExpressibleByArgument {}

/// The rules of docs/protocol.md "Limits" for the fields the admin commands send. Names and emails
/// use ParleyCore's own checks, as the server does; the password and capacity ranges are the
/// server's (AdminService), repeated here to fail early.
enum Check {
    /// An app, queue or agent name: one line, 1 to 100 characters, not blank.
    static func name(_ text: String, option: String = "--name") throws {
        do {
            try Validation.shortText(text, field: option, maxLength: 100, required: true)
        } catch {
            throw ValidationError("\(option): \(error.message)")
        }
    }

    /// A free one-line text such as a visitor's name or a subject: may be empty, at most `maxLength`.
    static func shortText(_ text: String, option: String, maxLength: Int) throws {
        do {
            try Validation.shortText(text, field: option, maxLength: maxLength)
        } catch {
            throw ValidationError("\(option): \(error.message)")
        }
    }

    /// An agent's login email.
    static func email(_ text: String, option: String = "--email") throws {
        do {
            try Validation.email(text, field: option)
        } catch {
            throw ValidationError("\(option): \(error.message)")
        }
    }

    /// An agent's password: 8 to 200 characters.
    static func password(_ text: String, option: String = "--password") throws {
        guard (8...200).contains(text.count) else { throw ValidationError("\(option): 8 to 200 characters") }
    }

    /// An agent's capacity: 0 to 100 conversations at once.
    static func capacity(_ value: Int) throws {
        guard (0...100).contains(value) else { throw ValidationError("--capacity: between 0 and 100") }
    }
}
