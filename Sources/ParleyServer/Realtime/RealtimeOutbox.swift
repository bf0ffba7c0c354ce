/// The queue of one `/v1/realtime` socket and who drains it: a pure state machine (no I/O), held
/// under a lock by ``RealtimeConnection``, which runs the actions it returns.
///
/// Nothing runs for a socket whose queue is empty: an idle connection costs its queue and nothing
/// else. The first item queued starts one drain (``RealtimeWriter``, on the socket's event loop);
/// the drain takes everything queued at once, so the frames go out in one flush, and ends when it
/// finds the queue empty. The hub never waits: when the queue is full the reader is too slow, and
/// the connection is cut off at once so that nobody else slows down.
struct RealtimeOutbox<Item> {
    enum Phase: Equatable {
        /// Taking items; `isDraining` when a drain runs (or is about to).
        case open(isDraining: Bool)
        /// No more items are taken; the running drain sends what is queued, then the connection ends.
        case finishing
        /// Cut off or ended: nothing more is sent.
        case closed
    }

    /// What the connection does after queuing an item.
    enum EnqueueAction: Equatable {
        case none
        /// Start a drain on the socket's event loop.
        case startDrain
        /// The queue overflowed: close the socket now (the writer may be stuck on a reader that does not read).
        case closeChannel
    }

    /// What the drain does next.
    enum TakeAction {
        /// Send these, in order.
        case send([Item])
        /// Nothing queued: the drain ends (the next item starts another).
        case idle
        /// Everything queued before the end was sent: the drain ends, and the connection with it,
        /// with a close code 1008 when the caller's right to it was revoked.
        case finished(revocationReason: String?)
    }

    let limit: Int
    private(set) var phase = Phase.open(isDraining: false)
    private(set) var didOverflow = false
    private(set) var revocationReason: String?
    private var items: [Item] = []

    /// - Parameter limit: the most items the queue holds (``ServerConfiguration/realtimeBufferLimit``).
    init(limit: Int) { self.limit = limit }

    mutating func enqueue(_ item: Item) -> EnqueueAction {
        guard case .open(let isDraining) = phase else { return .none }
        guard items.count < limit else {
            phase = .closed
            didOverflow = true
            items = []
            return .closeChannel
        }
        items.append(item)
        if isDraining { return .none }
        phase = .open(isDraining: true)
        return .startDrain
    }

    /// The drain takes everything queued.
    mutating func take() -> TakeAction {
        switch phase {
        case .open:
            if items.isEmpty {
                phase = .open(isDraining: false)
                return .idle
            }
            return .send(takeAll())
        case .finishing:
            if items.isEmpty {
                phase = .closed
                return .finished(revocationReason: revocationReason)
            }
            return .send(takeAll())
        case .closed:
            return .idle
        }
    }

    /// The reader ended: the running drain, if any, sends what is queued, then ends.
    mutating func finish() {
        if case .open(let isDraining) = phase { phase = isDraining ? .finishing : .closed }
    }

    /// True while a drain runs (or is about to); false once the queue can send nothing more.
    var isDraining: Bool {
        switch phase {
        case .open(let isDraining): isDraining
        case .finishing: true
        case .closed: false
        }
    }

    /// The caller's right to the connection ended: `notice` is sent last, then the connection ends
    /// with 1008. A second revocation changes nothing.
    mutating func revoke(reason: String, notice: Item) -> EnqueueAction {
        guard case .open(let isDraining) = phase, revocationReason == nil else { return .none }
        revocationReason = reason
        items.append(notice)
        phase = .finishing
        return isDraining ? .none : .startDrain
    }

    /// The writer failed: nothing more is sent.
    mutating func abort() {
        phase = .closed
        items = []
    }

    /// Hands over the queue, leaving an empty one that holds no memory.
    private mutating func takeAll() -> [Item] {
        var taken: [Item] = []
        swap(&taken, &items)
        return taken
    }
}

extension RealtimeOutbox: Sendable where Item: Sendable {}
