/// The life of a pool made on first use beside another (the office lane's renderers, made when
/// the first office document is handed on), as a small state machine: the one place that decides
/// whether a hand-off may make it, and which stop stops it. Kept under its owner's lock; the
/// transitions return what the owner is to do, outside the lock.
///
/// ```
/// notMade --hand-off--> made(pool) --stop/shutdown--> ended(pool)
/// notMade --stop/shutdown--> ended(nil)
/// ```
///
/// After `ended`, no hand-off makes a pool (a job handed on after a stop ends cancelled), and a
/// second stop has nothing to stop.
struct SecondPoolState<Pool> {
    private enum State {
        case notMade
        case made(Pool)
        /// Ended, keeping the pool made before, if any (its counts stay readable).
        case ended(Pool?)
    }

    private var state = State.notMade

    /// The pool a hand-off goes to: the one made before, or one `make` makes now; nil once ended.
    mutating func poolForHandOff(make: () -> Pool) -> Pool? {
        switch state {
        case .notMade:
            let pool = make()
            state = .made(pool)
            return pool
        case .made(let pool): return pool
        case .ended: return nil
        }
    }

    /// Ends it (a stop or a shutdown of its owner): the pool to stop or shut down, if one was
    /// made and this is the first end; nil otherwise.
    mutating func end() -> Pool? {
        switch state {
        case .notMade:
            state = .ended(nil)
            return nil
        case .made(let pool):
            state = .ended(pool)
            return pool
        case .ended: return nil
        }
    }

    /// The pool made, if one was, kept after it ended: its counts stay readable after a stop.
    var madePool: Pool? {
        switch state {
        case .notMade: nil
        case .made(let pool): pool
        case .ended(let pool): pool
        }
    }
}
