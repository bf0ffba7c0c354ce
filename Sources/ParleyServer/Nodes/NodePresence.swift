import Foundation
import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// Keeps this node's place among the nodes sharing a database (decision 0006): writes how many
/// sockets each agent has open here, beats this node's heartbeat, reads the other live nodes'
/// agents' sockets into routing, and reconciles routing with the database on every beat.
///
/// A node that stops beating (killed, cut off) is forgotten after `staleAfter`, and with it its
/// agents' sockets: their conversations then follow the offline grace, as on one node.
struct NodePresence: Service {
    let source: any NodeNoticeSource
    let hub: Hub
    let routing: RoutingEngine
    /// Agents whose local connection count changed, from ``RoutingEngine/onLocalPresenceChanged(_:)``.
    let changes: AsyncStream<AgentID>
    let interval: TimeInterval
    let staleAfter: TimeInterval
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await writeChanges() }
                group.addTask { await beat() }
            }
        }
    }

    /// One writer, in the order changes happen, each writing the count as it is when written: the
    /// row always ends with the latest count, however connects and disconnects interleave.
    private func writeChanges() async {
        for await agent in changes {
            while !Task.isCancelled {
                do {
                    try await source.setPresence(agent: agent, connections: await routing.localConnections(of: agent))
                    break
                } catch {
                    logger.warning("agent presence not written; retrying", metadata: ["parley.agent": "\(agent)", "error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    private func beat() async {
        while !Task.isCancelled {
            await Self.readRemotePresence(source: source, hub: hub, routing: routing, staleAfter: staleAfter, logger: logger)
            await routing.reconcile()
            try? await Task.sleep(for: .seconds(interval))
        }
    }

    /// Beats this node's heartbeat and hands routing the connections of the other live nodes. When
    /// it forgot a silent node, whose last notices may never come, every subscription here catches
    /// up from its cursor: a node that died between a commit and its notice delays nobody beyond
    /// its timeout and one beat.
    static func readRemotePresence(
        source: any NodeNoticeSource, hub: Hub, routing: RoutingEngine, staleAfter: TimeInterval, logger: Logger
    ) async {
        do {
            let beat = try await source.heartbeat(staleAfter: staleAfter)
            await routing.remotePresence(beat.remoteConnections)
            if beat.nodesLost > 0 { hub.resynchronize() }
        } catch {
            logger.warning("node heartbeat failed", metadata: ["error": "\(error)"])
        }
    }
}
