import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import ParleyCore

/// The request context of every Parley route: Parley's JSON coders, the body limit, the channel
/// (so a realtime connection that falls too far behind can be cut off), and the caller.
public struct ParleyRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<ParleyRequestContext>
    /// The connection's channel.
    let channel: any Channel
    /// Who sent the request, as ``CallerMiddleware`` found it, or why they were refused (401, 403).
    /// The refusal is kept rather than thrown so that routes open to everyone still run; a route
    /// that needs a caller throws it from ``requireCaller()`` and its siblings.
    var authentication: Result<Caller, any Error> = .failure(APIError.unauthorized())

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.channel = source.channel
    }

    public var maxUploadSize: Int { Limits.maxRequestBodyBytes }
    public var requestDecoder: JSONDecoder { ParleyJSON.makeDecoder() }
    public var responseEncoder: JSONEncoder { ParleyJSON.makeEncoder() }
}

extension Request {
    /// Reads and decodes a JSON body, with a 413 past the limit and a 400 naming the bad field.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: ParleyRequestContext) async throws -> T {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        do {
            return try ParleyJSON.makeDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError.badRequest(error.fieldMessage)
        }
    }
}

/// A JSON response with a chosen status.
struct JSONResponse<Value: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var value: Value

    init(_ value: Value, status: HTTPResponse.Status = .ok) {
        self.value = value
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try ParleyJSON.encode(value)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
