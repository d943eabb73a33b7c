import Foundation
import GlanceTestSupport
import NIOCore
import Synchronization
import Testing

@testable import GlanceOperations
@testable import GlanceServer

/// The pieces that bound what one client can make the server do: how a client is counted, its
/// share of the preview queue and its turns, its attempts at signing in, and the names a host
/// may be called by.
@Suite("what one client may cost", .timeLimit(.minutes(10)))
struct ClientLimitTests {
    @Test("a client is its IPv4 address, or the /64 of its IPv6 address; an IPv4 client on a dual stack is its IPv4")
    func clientKeys() throws {
        let v4 = try SocketAddress(ipAddress: "192.0.2.7", port: 1)
        #expect(ClientKey.of(v4) == "192.0.2.7")
        let first = try SocketAddress(ipAddress: "2001:db8:1:2:aaaa::1", port: 1)
        let second = try SocketAddress(ipAddress: "2001:db8:1:2:ffff:1:2:3", port: 2)
        let elsewhere = try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1)
        #expect(ClientKey.of(first) == ClientKey.of(second))
        #expect(ClientKey.of(first) != ClientKey.of(elsewhere))
        #expect(ClientKey.of(first) == "2001:db8:1:2::/64")
        #expect(ClientKey.of(try SocketAddress(ipAddress: "::1", port: 1)) == "::1")
        #expect(ClientKey.of(try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 1)).hasSuffix("192.0.2.7"))
        #expect(ClientKey.of(nil) == "local")
    }

    @Test("a share of the connections: a quarter of them, at least 2, at most all")
    func connectionShares() {
        #expect(ConnectionLimits().connectionsPerClient == 128)
        #expect(ConnectionLimits(maximumConnections: 3).connectionsPerClient == 2)
        #expect(ConnectionLimits(maximumConnections: 1).connectionsPerClient == 1)
        #expect(ConnectionLimits(maximumConnections: 100, connectionsPerClient: 7).connectionsPerClient == 7)
    }

    /// Records the order in which renders got their turn.
    final class Order: Sendable {
        private let clients = Mutex<[String]>([])
        func append(_ client: String) { clients.withLock { $0.append(client) } }
        var all: [String] { clients.withLock { $0 } }
    }

    @Test("the preview queue: turns go round the clients, a client's share and the whole queue are bounded")
    func previewQueueTurns() async throws {
        let queue = PreviewQueue(running: 1, perClient: 3, capacity: 5)
        // One render runs; the greedy client queues three, the other one.
        try await queue.enter(client: "greedy")
        let order = Order()
        var waiting: [Task<Void, any Error>] = []
        for client in ["greedy", "greedy", "greedy", "other"] {
            waiting.append(
                Task {
                    try await queue.enter(client: client)
                    order.append(client)
                })
            // Queued in this order.
            try await eventually("\(waiting.count) waiting, \(queue.depths.waiting) seen") {
                queue.depths.waiting >= waiting.count
            }
        }
        // Past the greedy client's share: refused at once.
        await #expect(throws: ServerError.self) { try await queue.enter(client: "greedy") }
        // Each render that ends lets the next client in turn go: the other one second, not last.
        for expected in 1...4 {
            queue.leave()
            try await eventually("\(expected) let in, \(order.all) seen") { order.all.count >= expected }
        }
        #expect(order.all == ["greedy", "other", "greedy", "greedy"])
        queue.leave()
        #expect(queue.depths == (0, 0))
        for task in waiting { try await task.value }
    }

    @Test("a render that waits and is cancelled leaves the queue; a full queue refuses everyone")
    func previewQueueCancellation() async throws {
        let queue = PreviewQueue(running: 1, perClient: 4, capacity: 2)
        try await queue.enter(client: "a")
        let cancelled = Task { try await queue.enter(client: "b") }
        try await eventually("one waiting") { queue.depths.waiting >= 1 }
        let kept = Task { try await queue.enter(client: "c") }
        try await eventually("two waiting") { queue.depths.waiting >= 2 }
        await #expect(throws: ServerError.self) { try await queue.enter(client: "d") }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.depths.waiting == 1)
        queue.leave()
        try await kept.value
        #expect(queue.depths == (0, 1))
        queue.leave()
    }

    @Test(
        "sign-in attempts: ten an account and thirty a client in a minute, however they come; a success takes its own back"
    )
    func signInAttempts() {
        let time = ManualTime()
        let throttle = SignInThrottle(time: time.source)
        for _ in 0..<SignInThrottle.attemptsPerAccount {
            #expect(throttle.admit(client: "192.0.2.1", account: "alice") == nil)
        }
        let wait = throttle.admit(client: "192.0.2.1", account: "alice")
        #expect(wait != nil && wait! > .seconds(50) && wait! <= SignInThrottle.attemptWindow)
        // Another client is refused on the account too; the first may try another account.
        #expect(throttle.admit(client: "192.0.2.2", account: "alice") != nil)
        #expect(throttle.admit(client: "192.0.2.1", account: "bob") == nil)
        throttle.refund(client: "192.0.2.1", account: "alice")
        #expect(throttle.admit(client: "192.0.2.3", account: "alice") == nil)
        // A client that tries many accounts reaches its own bound.
        for index in 0..<(SignInThrottle.attemptsPerClient - 10) {
            #expect(throttle.admit(client: "192.0.2.1", account: "user\(index)") == nil)
        }
        #expect(throttle.admit(client: "192.0.2.1", account: "carol") != nil)
        // A minute on, the window has moved past them all: both bounds are open again.
        time.advance(by: SignInThrottle.attemptWindow)
        #expect(throttle.admit(client: "192.0.2.1", account: "alice") == nil)
        #expect(throttle.admit(client: "192.0.2.1", account: "carol") == nil)
    }

    @Test("after failures an attempt waits, doubling to eight seconds; ten minutes on it waits no more")
    func signInDelays() {
        let time = ManualTime()
        let throttle = SignInThrottle(time: time.source)
        #expect(throttle.delay(client: "192.0.2.1", account: "alice") == .zero)
        throttle.failed(client: "192.0.2.1", account: "alice")
        #expect(throttle.delay(client: "192.0.2.1", account: "alice") == .milliseconds(250))
        throttle.failed(client: "192.0.2.1", account: "alice")
        #expect(throttle.delay(client: "192.0.2.9", account: "alice") == .milliseconds(500), "the account's failures")
        for _ in 0..<10 { throttle.failed(client: "192.0.2.1", account: "alice") }
        #expect(throttle.delay(client: "192.0.2.1", account: "bob") == SignInThrottle.maximumDelay, "the client's")
        time.advance(by: SignInThrottle.window - .seconds(1))
        #expect(throttle.delay(client: "192.0.2.1", account: "alice") == SignInThrottle.maximumDelay)
        time.advance(by: .seconds(1))
        #expect(throttle.delay(client: "192.0.2.1", account: "alice") == .zero)
    }

    @Test("a Host of an IPv6 address is the address, however it is written")
    func ipv6Hosts() {
        let check = HostCheck(boundHost: "0:0:0:0:0:0:0:1")
        #expect(check.accepts(authority: "[::1]:8080"))
        #expect(check.accepts(authority: "[0:0:0:0:0:0:0:1]:8080"))
        #expect(!check.accepts(authority: "[::2]:8080"))
        #expect(HostCheck(boundHost: "::1").accepts(authority: "[0::1]"))
        #expect(!HostCheck(boundHost: "127.0.0.1").accepts(authority: "attacker.example"))
    }

    @Test("a Host's name is compared without its port, in lower case, without a final dot; an odd port keeps it whole")
    func hostNames() {
        let check = HostCheck(boundHost: "127.0.0.1", serverNames: ["Photos.Example.org"])
        for accepted in [
            "127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:80", "localhost.", "localhost.:8080",
            "photos.example.org", "Photos.EXAMPLE.org:443", "photos.example.org.",
        ] {
            #expect(check.accepts(authority: accepted), "\(accepted)")
        }
        for refused in [
            "127.0.0.2", "localhost:80x", "localhost:8080:1", "photos.example.org.evil", "évil.example",
            "", ":80",
        ] {
            #expect(!check.accepts(authority: refused), "\(refused)")
        }
        #expect(HostCheck.hostPart(of: "[::1]:8080") == "::1")
        #expect(HostCheck.hostPart(of: "example.org:80") == "example.org")
        #expect(HostCheck.hostPart(of: "example.org:8O") == "example.org:8O")
        #expect(HostCheck.hostPart(of: "a:1:2") == "a:1:2")
        #expect(HostCheck.hostPart(of: "[::1") == "[::1")
    }
}
