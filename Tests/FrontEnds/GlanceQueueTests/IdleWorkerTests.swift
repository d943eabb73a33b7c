import Testing

@testable import GlanceQueue

/// How an idle worker waits between looks at the queue.
@Suite("Idle worker")
struct IdleWorkerTests {
    @Test("the pause between looks that found nothing doubles from 0.2 s up to 10 s")
    func pauses() {
        let seconds = [0, 1, 2, 5, 6, 7, 1000].map { QueueWorker.idlePause(after: $0) / .seconds(1) }
        #expect(seconds == [0.2, 0.4, 0.8, 6.4, 10, 10, 10])
    }

    @Test("a ring wakes the waiter at once, or the next wait when no one waits; else the wait ends at its limit")
    func bell() async {
        let bell = JobsBell()
        let clock = ContinuousClock()
        // Rung before anyone waits: the next wait returns at once.
        bell.ring()
        #expect(await clock.measure { await bell.wait(upTo: .seconds(60)) } < .seconds(30))
        // Rung while waiting.
        let ringer = Task {
            try? await Task.sleep(for: .milliseconds(100))
            bell.ring()
        }
        #expect(await clock.measure { await bell.wait(upTo: .seconds(60)) } < .seconds(30))
        await ringer.value
        // Not rung: the limit ends the wait, not before.
        let waited = await clock.measure { await bell.wait(upTo: .milliseconds(300)) }
        #expect(waited >= .milliseconds(300) && waited < .seconds(30))
    }
}
