import HummingbirdBcrypt
import NIOPosix

/// bcrypt, run on NIO's thread pool so a login never blocks the async executor.
public struct PasswordHasher: Sendable {
    /// The bcrypt cost (log2 of the rounds). Default 12; tests use 4, the minimum.
    public var cost: UInt8

    public init(cost: UInt8 = 12) { self.cost = cost }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
