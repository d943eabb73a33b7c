internal import CProcess
import Hummingbird
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What one client may cost the server: how many connections are served at once and how many
/// of them one client may hold, how long a TLS handshake may take, how long a connection may send
/// no complete request (or, over HTTP/2, hold no stream), and how long a client may take none of
/// an answer.
///
/// An answer is sent with backpressure (the next piece of a document is read only when the
/// previous one has gone to the socket), so a client that stops reading holds a chunk in the
/// server and the kernel's socket buffer, and no more; it is then disconnected after
/// ``sendTimeout``. With ``maximumConnections`` open, the server stops accepting until one
/// closes (the kernel's listen queue holds the others); a client (an address, or an IPv6 /64:
/// ``ClientKey``) past its ``connectionsPerClient`` is closed as it is accepted.
public struct ConnectionLimits: Sendable {
    /// Connections served at once.
    public var maximumConnections: Int
    /// Connections one client may hold at once.
    public var connectionsPerClient: Int
    /// How long a connection may send no complete request (a slow or stalled client); over
    /// HTTP/2, how long it may hold no open stream.
    public var idleTimeout: Duration
    /// How long a client may take none of an answer before it is disconnected.
    public var sendTimeout: Duration
    /// How long a TLS handshake may take, from the connection's start.
    public var handshakeTimeout: Duration

    /// Limits of `maximumConnections` connections, `connectionsPerClient` of them for one client
    /// (by default a quarter of all, at least 2).
    public init(
        maximumConnections: Int = 512, connectionsPerClient: Int? = nil, idleTimeout: Duration = .seconds(30),
        sendTimeout: Duration = .seconds(60), handshakeTimeout: Duration = .seconds(10)
    ) {
        self.maximumConnections = maximumConnections
        self.connectionsPerClient = connectionsPerClient ?? Self.defaultShare(of: maximumConnections)
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        self.handshakeTimeout = handshakeTimeout
    }

    /// A client's share when none is given: a quarter of the connections, at least 2 (a browser
    /// opens several over HTTP/1.1), at most all of them.
    public static func defaultShare(of maximumConnections: Int) -> Int {
        min(max(1, maximumConnections), max(2, maximumConnections / 4))
    }
}

/// Closes a connection whose client has taken none of its answer for a while: the channel
/// stayed unwritable (the socket's buffer full, the peer reading nothing) for `timeout`.
///
/// A large answer makes the channel unwritable and writable again several times while it goes
/// out, so the handler keeps only when the channel last became unwritable and one check armed at
/// a time, re-armed for what is left of the timeout: scheduling and cancelling a check on every
/// change was 0.8% of the server's CPU under wrk on the bench's thumbnails (perf), most of it
/// looking up the closure's generic metadata.
final class StalledClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    private let timeout: TimeAmount
    private let trimmer: MemoryTrimmer
    /// When the channel last became unwritable; nil while it is writable.
    private var unwritableSince: NIODeadline?
    /// The armed check, if any.
    private var check: Scheduled<Void>?

    init(timeout: Duration, trimmer: MemoryTrimmer) {
        self.trimmer = trimmer
        let (seconds, attoseconds) = timeout.components
        self.timeout = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The kernel's send buffer of each connection: without a size, Linux grows it to 4 MiB for a
    /// client that does not read (memory that no process limit counts); 256 KiB still fills a
    /// fast link, and a slow one is limited by the link, not by this.
    static let socketSendBuffer = 256 * 1024

    func handlerAdded(context: ChannelHandlerContext) {
        // On a connection's own channel (its parent is the listening socket's), not on an HTTP/2
        // stream within one, which has no socket (and traps when asked to set a socket option).
        if context.channel.parent?.parent == nil {
            _ = context.channel.setOption(.socketOption(.so_sndbuf), value: Self.socketSendBuffer)
        }
        trimmer.connectionOpened()
    }

    /// Raised when the client of an HTTP/1 connection sent its end (`FIN`): it sends no more,
    /// and a request still waiting for its answer (a preview being drawn) stops waiting, as
    /// nginx answers 499 there. Not on an HTTP/2 stream, whose request ends its input anyway.
    let inputEnded = Flag()

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, context.channel.parent?.parent == nil {
            inputEnded.raise()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            // The armed check, if any, finds it writable and stands down.
            unwritableSince = nil
        } else if unwritableSince == nil {
            unwritableSince = context.eventLoop.now
            if check == nil { armCheck(context: context, in: timeout) }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Looks again in `delay`: closes the connection if it has been unwritable for the whole
    /// timeout by then, re-arms for the rest if it became unwritable again since.
    private func armCheck(context: ChannelHandlerContext, in delay: TimeAmount) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.check = nil
            guard let since = handler.unwritableSince, !context.channel.isWritable else { return }
            let waited = context.eventLoop.now - since
            if waited >= handler.timeout {
                context.close(promise: nil)
            } else {
                handler.armCheck(context: context, in: handler.timeout - waited)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        unwritableSince = nil
        trimmer.connectionClosed()
        context.fireChannelInactive()
    }

    /// Taken out of the pipeline: the armed check (which holds the handler and its context) goes.
    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }
}

/// Gives the memory that closed connections used back to the system: glibc keeps freed memory
/// in its per-thread arenas (after 200 clients that stopped reading, 46 MB more than at start),
/// so when the last open connection closes, or at most once a second while others stay open,
/// what is free is returned (`malloc_trim`).
final class MemoryTrimmer: Sendable {
    private let lastTrim = Atomic<Int64>(0)
    private let open = Atomic<Int>(0)

    func connectionOpened() {
        open.add(1, ordering: .relaxed)
    }

    func connectionClosed() {
        let stillOpen = open.subtract(1, ordering: .relaxed).newValue
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let seconds = Int64(now.tv_sec)
        let last = lastTrim.load(ordering: .relaxed)
        guard stillOpen <= 0 || seconds > last else { return }
        guard lastTrim.compareExchange(expected: last, desired: seconds, ordering: .relaxed).exchanged else { return }
        glance_return_freed_memory()
    }
}
