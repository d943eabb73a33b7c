import Testing

@testable import GlancePipeline

@Suite("The office pool's life", .timeLimit(.minutes(10)))
struct SecondPoolStateTests {
    /// A stand-in pool: which one it is.
    final class Pool {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    @Test("a hand-off makes the pool once; the first end returns it to stop, a second end nothing")
    func madeThenEnded() {
        var state = SecondPoolState<Pool>()
        var made = 0
        let first = state.poolForHandOff {
            made += 1
            return Pool(made)
        }
        let second = state.poolForHandOff {
            made += 1
            return Pool(made)
        }
        #expect(made == 1 && first === second, "one pool for every hand-off")
        #expect(state.end() === first, "the first stop stops the pool made")
        #expect(state.end() == nil, "a second stop has nothing to stop")
        #expect(state.madePool === first, "its counts stay readable")
    }

    @Test("after an end no hand-off makes a pool, whether one was made before or not")
    func nothingAfterEnd() {
        var never = SecondPoolState<Pool>()
        #expect(never.end() == nil)
        var asked = false
        #expect(
            never.poolForHandOff {
                asked = true
                return Pool(1)
            } == nil)
        #expect(!asked && never.madePool == nil, "no pool is made after a stop")

        var once = SecondPoolState<Pool>()
        _ = once.poolForHandOff { Pool(1) }
        _ = once.end()
        #expect(once.poolForHandOff { Pool(2) } == nil, "a hand-off after the stop ends cancelled")
    }
}
