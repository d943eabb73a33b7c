import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL
import NIOTLS
import Synchronization

/// How many connections each client holds (by ``ClientKey``), so that one host cannot take every
/// connection the server serves: a connection past a client's share is closed as it is accepted.
final class ConnectionShares: Sendable {
    /// The most connections one client may hold at once.
    let perClient: Int
    private let open = Mutex<[String: Int]>([:])

    init(perClient: Int) {
        self.perClient = max(1, perClient)
    }

    /// Counts a connection of `channel`'s client and returns true, or false (counting nothing)
    /// when the client holds its share already; a counted connection is given back when it closes.
    func claim(_ channel: any Channel) -> Bool {
        let client = ClientKey.of(channel.remoteAddress)
        let claimed = open.withLock { open in
            let held = open[client, default: 0]
            guard held < perClient else { return false }
            open[client] = held + 1
            return true
        }
        if claimed {
            channel.closeFuture.whenComplete { [self] _ in
                open.withLock { open in
                    let left = open[client, default: 1] - 1
                    open[client] = left > 0 ? left : nil
                }
            }
        }
        return claimed
    }
}

/// Why a connection was closed as it was accepted.
enum ConnectionRefusal: Error {
    /// Its client holds its share of the connections already.
    case clientShareTaken
    /// The TLS handshake agreed on a protocol other than HTTP/1.1 and HTTP/2.
    case unexpectedProtocol

    /// Closes `channel`, its client over its share, and fails its setup. (NIO leaves a channel
    /// whose setup failed open: whoever fails it closes it.)
    static func refuse<Value>(_ channel: any Channel) -> EventLoopFuture<Value> {
        channel.close(promise: nil)
        return channel.eventLoop.makeFailedFuture(ConnectionRefusal.clientShareTaken)
    }
}

/// A plain-HTTP connection, counted against its client's share (``ConnectionShares``); HTTP/1.1
/// closes a connection that sends no complete request in the idle time by itself.
struct SharedHTTP1Channel: ServerChildChannel {
    let http1: HTTP1Channel
    let shares: ConnectionShares

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        guard shares.claim(channel) else { return ConnectionRefusal.refuse(channel) }
        return http1.setup(channel: channel, logger: logger)
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// A TLS connection that speaks HTTP/2 or HTTP/1.1 as the client chose (ALPN), with the deadlines
/// that keep a client that says nothing from holding it:
///
/// - counted against its client's share (``ConnectionShares``);
/// - the handshake must be done within ``ConnectionLimits/handshakeTimeout`` (a connection that
///   sends nothing, or half a ClientHello, is closed then);
/// - HTTP/1.1 closes a connection that sends no complete request in the idle time, as over plain
///   HTTP;
/// - HTTP/2 closes a connection that has no open stream for the idle time
///   (``StreamlessConnectionDeadline``: Hummingbird's own idle timer only sends `GOAWAY` and waits
///   for the client's answer to a `PING`, which a silent client never sends); each stream is
///   closed after the idle time without a complete request, and at most 100 are open at once
///   (the `SETTINGS_MAX_CONCURRENT_STREAMS` NIO announces).
///
/// Hummingbird's `HTTP2UpgradeChannel` does the same negotiation, with no way to put a deadline
/// on the handshake or on a connection without streams: hence this one.
struct GuardedTLSChannel: ServerChildChannel {
    /// What the client and the server agreed to speak.
    enum Negotiated: Sendable {
        case http1(HTTP1Channel.Value)
        case http2(HTTP2Channel.Value)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let context: NIOSSLContext
    let http1: HTTP1Channel
    let http2: HTTP2Channel
    let limits: ConnectionLimits
    let shares: ConnectionShares

    /// A channel for `certificate`'s TLS settings, offering HTTP/2 and HTTP/1.1; `connection`
    /// configures each HTTP/1.1 connection and each HTTP/2 stream.
    init(
        certificate: ServerCertificate, connection: HTTP1Channel.Configuration, limits: ConnectionLimits,
        shares: ConnectionShares, responder: @escaping HTTPChannelHandler.Responder
    ) throws {
        var tls = certificate.tlsConfiguration
        tls.applicationProtocols = NIOHTTP2SupportedALPNProtocols
        context = try NIOSSLContext(configuration: tls)
        http1 = HTTP1Channel(responder: responder, configuration: connection)
        http2 = HTTP2Channel(responder: responder, configuration: .init(streamConfiguration: connection))
        self.limits = limits
        self.shares = shares
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard shares.claim(channel) else { return ConnectionRefusal.refuse(channel) }
        let (http1, http2) = (http1, http2)
        let idle = TimeAmount(limits.idleTimeout)
        return channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(NIOSSLServerHandler(context: context))
            let handshake = channel.eventLoop.scheduleTask(in: TimeAmount(limits.handshakeTimeout)) {
                channel.close(promise: nil)
            }
            channel.closeFuture.whenComplete { _ in handshake.cancel() }
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                handshake.cancel()
                switch result {
                case .negotiated("h2"):
                    return http2.setup(channel: channel, logger: logger).flatMapThrowing { value in
                        // Added before the negotiation handler replays what came with the
                        // handshake: the first stream is counted too.
                        try channel.pipeline.syncOperations.addHandler(StreamlessConnectionDeadline(timeout: idle))
                        return .http2(value)
                    }
                case .negotiated("http/1.1"), .fallback:
                    return http1.setup(channel: channel, logger: logger).map { .http1($0) }
                case .negotiated:
                    return channel.close().flatMapThrowing { throw ConnectionRefusal.unexpectedProtocol }
                }
            }
            try pipeline.addHandler(negotiation)
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("a TLS connection ended before it spoke HTTP: \(error)")
        }
    }
}

/// Closes an HTTP/2 connection that has had no open stream for `timeout`: from the start, and
/// from the end of its last stream. It counts the streams from the HTTP/2 handler's events, and
/// closes the connection outright (a client that says nothing would never answer a `GOAWAY`).
final class StreamlessConnectionDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var openStreams: Set<HTTP2StreamID> = []
    private var closing: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closing?.cancel()
        closing = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let created = event as? NIOHTTP2StreamCreatedEvent {
            openStreams.insert(created.streamID)
            closing?.cancel()
            closing = nil
        } else if let closed = event as? StreamClosedEvent {
            openStreams.remove(closed.streamID)
            if openStreams.isEmpty { arm(context) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing?.cancel()
        closing = nil
        context.fireChannelInactive()
    }

    private func arm(_ context: ChannelHandlerContext) {
        closing?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        closing = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = loopBound.value
            guard handler.openStreams.isEmpty else { return }
            context.close(promise: nil)
        }
    }
}
