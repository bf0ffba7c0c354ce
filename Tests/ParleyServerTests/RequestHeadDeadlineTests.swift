@testable import ParleyServer
import Testing

/// The first request head's deadline alone: bytes in, the head's end out, no sockets or clocks.
struct RequestHeadDeadlineTests {
    /// Feeds `chunks` one read at a time; the offset where the head ended, with the chunk's index.
    func headEnd(_ chunks: [String], deadline: inout RequestHeadDeadline) -> (chunk: Int, offset: Int)? {
        for (index, chunk) in chunks.enumerated() {
            let end = Array(chunk.utf8).withUnsafeBytes { deadline.read($0) }
            if let end { return (index, end) }
        }
        return nil
    }

    @Test(arguments: [
        (["GET / HTTP/1.1\r\nHost: a\r\n\r\n"], 0, 27),
        (["GET / HTTP/1.1\r\nHost: a\r\n\r\nBODY"], 0, 27),
        (["GET / HTTP/1.1\r\n", "Host: a\r\n", "\r\n"], 2, 2),
        (["GET / HTTP/1.1\r\nHost: a\r", "\n\r", "\nrest"], 2, 1),
        (["GET / HTTP/1.1\r\nHost: a\r\n\r", "\n"], 1, 1),
        // Empty lines before the request line are not its end (llhttp skips them too).
        (["\r\n\r\nGET / HTTP/1.1\r\n\r\n"], 0, 22),
        (["\r\n", "\r\n", "GET / HTTP/1.1\r\n\r\n"], 2, 18),
        // A CR that breaks the pattern can start it again.
        (["GET / HTTP/1.1\r\nX: a\r\r\n\r\n"], 0, 25),
    ])
    func theHeadEnds_atTheFirstEmptyLine_acrossReads(_ chunks: [String], chunk: Int, offset: Int) {
        var deadline = RequestHeadDeadline()
        let end = headEnd(chunks, deadline: &deadline)
        #expect(end?.chunk == chunk)
        #expect(end?.offset == offset)
        #expect(deadline.state == .met)
        let closed1 = deadline.deadlinePassed()
        #expect(!closed1, "a complete head is not closed")
    }

    @Test(arguments: [
        [],
        ["\r\n\r\n"],
        ["GET / HTTP/1.1\r\nHost: a\r\n"],
        ["GET / HTTP/1.1\n\n"],
        ["GET / HTTP/1.1\r\nHost: a\r\n\r"],
        ["G", "E", "T"],
    ])
    func anUnfinishedHead_isClosedAtTheDeadline(_ chunks: [String]) {
        var deadline = RequestHeadDeadline()
        #expect(headEnd(chunks, deadline: &deadline) == nil)
        let closed2 = deadline.deadlinePassed()
        #expect(closed2)
        #expect(deadline.state == .missed)
        let closed3 = deadline.deadlinePassed()
        #expect(!closed3, "closed once")
        #expect(headEnd(["\r\n\r\n"], deadline: &deadline) == nil, "nothing more is read")
    }

    @Test func bytesAfterTheHead_areNotLookedAt() {
        var deadline = RequestHeadDeadline()
        #expect(headEnd(["GET / HTTP/1.1\r\n\r\n"], deadline: &deadline)?.offset == 18)
        #expect(headEnd(["POST / HTTP/1.1\r\n\r\n"], deadline: &deadline) == nil)
        #expect(deadline.state == .met)
    }
}
