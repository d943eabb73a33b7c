import NIOCore
import NIOEmbedded
import Testing

@testable import GlanceServer

/// The send timeout on an embedded channel whose event loop's time the test steps: a connection
/// is closed once it has stayed unwritable (its client reading nothing) for the whole timeout.
@Suite("Stalled client", .timeLimit(.minutes(10)))
struct StalledClientTests {
    /// A channel with a send timeout of `seconds`, its loop at time zero, writable.
    private func channel(seconds: Int64) throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(
            StalledClientHandler(timeout: .seconds(seconds), trimmer: MemoryTrimmer()))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, loop)
    }

    /// Makes `channel` writable or not, as its socket's buffer drains or fills.
    private func set(_ channel: EmbeddedChannel, writable: Bool) {
        channel.isWritable = writable
        channel.pipeline.fireChannelWritabilityChanged()
    }

    @Test("a client that takes nothing is let go at the timeout, not a tick before")
    func takesNothing() throws {
        let (channel, loop) = try channel(seconds: 60)
        set(channel, writable: false)
        loop.advanceTime(by: .seconds(60) - .nanoseconds(1))
        #expect(channel.isActive)
        loop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    @Test("a client that keeps reading is never let go, however often the buffer fills")
    func keepsReading() throws {
        let (channel, loop) = try channel(seconds: 60)
        for _ in 0..<1000 {
            set(channel, writable: false)
            loop.advanceTime(by: .seconds(1))
            set(channel, writable: true)
        }
        loop.advanceTime(by: .hours(1))
        #expect(channel.isActive)
    }

    @Test("the timeout counts from the last time the channel became unwritable")
    func countsFromTheLastStall() throws {
        let (channel, loop) = try channel(seconds: 60)
        set(channel, writable: false)
        loop.advanceTime(by: .seconds(50))
        set(channel, writable: true)
        loop.advanceTime(by: .seconds(5))
        // Stalled again at 55 s: the check armed at 0 s finds 5 s of stall at 60 s and waits on.
        set(channel, writable: false)
        loop.advanceTime(by: .seconds(60) - .nanoseconds(1))
        #expect(channel.isActive, "59.999 s into the second stall")
        loop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive, "60 s into the second stall")
    }

    @Test("a handler taken out of the pipeline closes nothing afterwards")
    func removed() throws {
        let (channel, loop) = try channel(seconds: 60)
        set(channel, writable: false)
        let handler = try channel.pipeline.syncOperations.handler(type: StalledClientHandler.self)
        try channel.pipeline.syncOperations.removeHandler(handler).wait()
        loop.advanceTime(by: .minutes(5))
        #expect(channel.isActive)
    }
}
