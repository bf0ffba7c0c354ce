/// Who took part in an event: a visitor, an agent, or the system itself.
public struct Participant: Hashable, Sendable, Codable {
    /// The kinds of participant.
    public enum Role: String, Hashable, Sendable, Codable {
        case visitor, agent, system
    }

    /// Whether this is a visitor, an agent or the system.
    public var role: Role
    /// The visitor's or agent's id; nil for the system.
    public var id: String?
    /// A display name; nil when the participant has none.
    public var name: String?

    /// Creates a participant.
    public init(role: Role, id: String?, name: String?) {
        self.role = role
        self.id = id
        self.name = name
    }

    /// The system, author of notices no person wrote.
    public static let system = Participant(role: .system, id: nil, name: nil)

    /// A visitor participant.
    public static func visitor(_ id: VisitorID, name: String?) -> Participant {
        Participant(role: .visitor, id: id.rawValue, name: name)
    }

    /// An agent participant.
    public static func agent(_ id: AgentID, name: String?) -> Participant {
        Participant(role: .agent, id: id.rawValue, name: name)
    }
}
