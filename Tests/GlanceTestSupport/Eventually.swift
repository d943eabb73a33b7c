import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a test waited for and did not see within its limit.
public struct NotSeenInTime: Error, CustomStringConvertible {
    public let description: String
}

/// Waits for an effect instead of guessing how long it takes: checks `condition` at once, then
/// every `pollEvery` (without blocking a thread), until it holds; throws ``NotSeenInTime`` naming
/// `awaited` (said at the time of failing, so it may tell what was seen instead) if it does not hold at the last check, which comes at or after `within` from now.
///
/// A test that must see the effect within a bound (a users file read again within a second)
/// passes that bound as `within`; the default only keeps a test from hanging when it never comes.
public func eventually(
    _ awaited: @autoclosure () -> String, within limit: Duration = .seconds(10),
    pollEvery interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while true {
        if try await condition() { return }
        let now = clock.now
        guard now < deadline else { throw NotSeenInTime(description: "not within \(limit): \(awaited())") }
        try await Task.sleep(for: min(interval, deadline - now))
    }
}

/// Whether `condition` came to hold within `limit`, checked at once and then every `pollEvery` on
/// the calling thread, which it blocks: for threads of their own and for what cannot await (a
/// folder removed in a `deinit`, a server that must answer before an initializer returns).
public func holdsSoon(
    within limit: Duration, pollEvery interval: Duration = .milliseconds(100), _ condition: () -> Bool
) -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
        if condition() { return true }
        let now = ContinuousClock.now
        guard now < deadline else { return false }
        let pause = min(interval, deadline - now).components
        Thread.sleep(forTimeInterval: Double(pause.seconds) + Double(pause.attoseconds) / 1e18)
    }
}

/// When `process` ended, or nil if it still runs after `limit` (it is left running). Waited for on
/// a thread of its own, not on one of the few threads that run every test's tasks: the instant is
/// the exit's even when this task resumes late (a test that times a stop reads it from here).
public func exitInstant(of process: Process, within limit: Duration) async -> ContinuousClock.Instant? {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            guard holdsSoon(within: limit, pollEvery: .milliseconds(5), { !process.isRunning }) else {
                return continuation.resume(returning: nil)
            }
            let ended = ContinuousClock.now
            process.waitUntilExit()  // Already ended: this only collects the status.
            continuation.resume(returning: ended)
        }
    }
}

/// Whether `process` ended within `limit`, waited for without holding a task's thread (see
/// ``exitInstant(of:within:)``).
public func exited(_ process: Process, within limit: Duration) async -> Bool {
    await exitInstant(of: process, within: limit) != nil
}

/// All that `handle` gives until its end of file, read on a thread of its own: a blocking read on
/// a task would hold one of the few threads that run every test's tasks.
public func readToEnd(_ handle: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: handle.readDataToEndOfFile()) }
    }
}

/// The result of `work`, run on a thread of its own: for what must block (a child process waited
/// for, a socket read to its end), so that it holds none of the few threads that run every
/// test's tasks (two on a 2-core machine, where two blocked tests stalled all the others).
public func onThreadOfItsOwn<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Everything a child process writes to a pipe, read on a thread of its own as it comes, so that a
/// test can wait for a line (with ``eventually(_:within:pollEvery:_:)``) while the process runs.
public final class CollectedOutput: Sendable {
    private let state = Mutex<(data: Data, ended: Bool)>((Data(), false))

    /// Starts reading `handle` until its end of file.
    public init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                self.state.withLock { $0.data.append(chunk) }
            }
            self.state.withLock { $0.ended = true }
        }
    }

    /// What has been read so far, as UTF-8.
    public var text: String { String(decoding: state.withLock { $0.data }, as: UTF8.self) }

    /// Everything, once the writer has closed its end (waited for up to `limit`; what was read by
    /// then otherwise).
    public func all(within limit: Duration = .seconds(60)) async -> String {
        try? await eventually("the output's end", within: limit) { state.withLock { $0.ended } }
        return text
    }
}
