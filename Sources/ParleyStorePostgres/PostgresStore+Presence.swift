import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

/// The outgoing half of the node link: signals, presence and heartbeats (decision 0006). The
/// incoming half is `PostgresStore+NodeNotices.swift`.
extension PostgresStore {
    public func announce(_ signal: NodeSignal) async throws {
        // Batched with the commits' notices, in order with them.
        notices.add(try NodeNoticeWire.signal(node: nodeID, signal))
    }

    public func setPresence(agent: AgentID, connections: Int) async throws {
        let now = Timestamp.millis(Date())
        try await transaction { connection in
            try await connection.query(
                "INSERT INTO nodes (id, heartbeat_at) VALUES (\(nodeID), \(now)) ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                logger: logger)
            if connections > 0 {
                try await connection.query(
                    """
                    INSERT INTO agent_presence (node_id, agent_id, connections) VALUES (\(nodeID), \(agent.rawValue), \(Int64(connections)))
                    ON CONFLICT (node_id, agent_id) DO UPDATE SET connections = excluded.connections
                    """, logger: logger)
            } else {
                try await connection.query(
                    "DELETE FROM agent_presence WHERE node_id = \(nodeID) AND agent_id = \(agent.rawValue)", logger: logger)
            }
            try await connection.query("SELECT pg_notify(\(NodeNoticeWire.channel), \(NodeNoticeWire.presence(node: nodeID)))", logger: logger)
        }
    }

    public func heartbeat(staleAfter: TimeInterval) async throws -> NodeHeartbeat {
        let now = Timestamp.millis(Date())
        let cutoff = now - Int64(staleAfter * 1000)
        let sessionPrefix = Self.sessionName(of: "")
        let suspected = suspectedNodes.withLock { Array($0) }
        let (beat, stillSuspected) = try await transaction { connection in
            try await connection.query(
                "INSERT INTO nodes (id, heartbeat_at) VALUES (\(nodeID), \(now)) ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                logger: logger)
            // Other nodes whose listening session is gone from this database: killed (the session
            // ends with the process) or reconnecting. Their agents are not counted from now on;
            // gone at two beats in a row (longer than a reconnect), they are dead.
            var withoutSession: Set<String> = []
            for row in try await rows(
                """
                SELECT n.id FROM nodes n WHERE n.id <> \(nodeID) AND NOT EXISTS (
                    SELECT 1 FROM pg_stat_activity a WHERE a.datname = current_database() AND a.application_name = \(sessionPrefix) || n.id)
                """, on: connection) {
                withoutSession.insert(try PostgresRows.string(row, "id"))
            }
            let dead = withoutSession.intersection(suspected)
            // A node silent for too long is gone (killed, cut off): its sockets are, too. So is one
            // whose session stayed gone. Whichever node sees it first tells the others.
            let gone = try await rows(
                "DELETE FROM nodes WHERE id <> \(nodeID) AND (heartbeat_at < \(cutoff) OR id = ANY(\(Array(dead)))) RETURNING id", on: connection)
            if !gone.isEmpty {
                try await connection.query(
                    "DELETE FROM agent_presence WHERE node_id NOT IN (SELECT id FROM nodes)", logger: logger)
                try await connection.query(
                    "SELECT pg_notify(\(NodeNoticeWire.channel), \(NodeNoticeWire.nodesLost(node: nodeID)))", logger: logger)
            }
            var presence: [AgentID: Int] = [:]
            for row in try await rows(
                """
                SELECT p.agent_id, sum(p.connections)::BIGINT AS connections FROM agent_presence p JOIN nodes n ON n.id = p.node_id
                WHERE p.node_id <> \(nodeID) AND n.heartbeat_at >= \(cutoff) AND NOT (p.node_id = ANY(\(Array(withoutSession))))
                GROUP BY p.agent_id
                """, on: connection) {
                presence[AgentID(rawValue: try PostgresRows.string(row, "agent_id"))] = Int(try PostgresRows.int(row, "connections"))
            }
            return (NodeHeartbeat(remoteConnections: presence, nodesLost: gone.count), withoutSession.subtracting(dead))
        }
        suspectedNodes.withLock { $0 = stillSuspected }
        return beat
    }

    /// Takes this node's rows out of the presence tables (a clean shutdown), so the others need not
    /// wait for its heartbeat to go stale.
    func leaveNodes() async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM agent_presence WHERE node_id = \(nodeID)", logger: logger)
            try await connection.query("DELETE FROM nodes WHERE id = \(nodeID)", logger: logger)
            try await connection.query("SELECT pg_notify(\(NodeNoticeWire.channel), \(NodeNoticeWire.presence(node: nodeID)))", logger: logger)
        }
    }
}
