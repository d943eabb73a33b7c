import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import GlanceServer

/// The HTTP/2 idle deadline on an embedded channel whose event loop's time the test steps: what
/// the live test (`test_live_limits.py`) can only wait for, judged here to the tick.
@Suite("HTTP/2 idle deadline", .timeLimit(.minutes(10)))
struct StreamlessDeadlineTests {
    /// A channel with the deadline at `seconds`, its loop at time zero.
    private func channel(seconds: Int64) throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(StreamlessConnectionDeadline(timeout: .seconds(seconds)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, loop)
    }

    @Test("a connection that never opens a stream is closed at the timeout, not a tick before")
    func noStream() throws {
        let (channel, loop) = try channel(seconds: 30)
        loop.advanceTime(by: .seconds(30) - .nanoseconds(1))
        #expect(channel.isActive)
        loop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    @Test("an open stream holds the connection however long; its end starts the timeout again")
    func streamHolds() throws {
        let (channel, loop) = try channel(seconds: 30)
        let stream = HTTP2StreamID(1)
        loop.advanceTime(by: .seconds(20))
        channel.pipeline.fireUserInboundEventTriggered(
            NIOHTTP2StreamCreatedEvent(streamID: stream, localInitialWindowSize: nil, remoteInitialWindowSize: nil))
        loop.advanceTime(by: .hours(2))
        #expect(channel.isActive, "a stream is open")
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: stream, reason: nil))
        loop.advanceTime(by: .seconds(29))
        #expect(channel.isActive, "29 s after the last stream ended")
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive, "30 s after the last stream ended")
    }

    @Test("with two streams, the end of one does not start the timeout")
    func twoStreams() throws {
        let (channel, loop) = try channel(seconds: 30)
        for id in [1, 3] {
            channel.pipeline.fireUserInboundEventTriggered(
                NIOHTTP2StreamCreatedEvent(
                    streamID: HTTP2StreamID(id), localInitialWindowSize: nil, remoteInitialWindowSize: nil))
        }
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: HTTP2StreamID(1), reason: nil))
        loop.advanceTime(by: .minutes(5))
        #expect(channel.isActive)
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: HTTP2StreamID(3), reason: nil))
        loop.advanceTime(by: .seconds(30))
        #expect(!channel.isActive)
    }
}
