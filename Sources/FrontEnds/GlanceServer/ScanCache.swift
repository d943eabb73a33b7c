import GlanceContainer
import GlanceCore
import GlanceListing
import GlancePipeline
import Synchronization

/// The container's documents as a walk found them a moment ago, so that a page of the grid or of
/// the API costs the same at 100,000 documents as at 100: a walk (`readdir` and `stat` of every
/// file) takes 0.18 s at 100,000, and every page made one.
///
/// A walk is out of date once the indexer tells of a change (a document rendered, failed, moved
/// or removed: with `--watch`, every change the watcher sees ends in one of those); the next
/// request then makes a new one and waits for it (requests meanwhile share it), so a page reloaded
/// after a change event shows the change. Without a change a walk is also redone when it is
/// ``maximumAge`` old, for what changed on disk unwatched: in the background, the requests
/// meanwhile answered from the walk before (a document added unwatched shows within seconds).
final class ScanCache: Sendable {
    private struct State {
        var documents: [ScannedDocument] = []
        var madeAt: ContinuousClock.Instant?
        /// The indexer's count of changes when the walk was made.
        var changes = -1
        /// Whether a walk is being made in the background.
        var refreshing = false
    }

    let scanner: ContainerScanner
    let indexer: Indexer
    /// How old a walk may be before one is made again in the background.
    let maximumAge: Duration
    private let state = Mutex(State())
    /// Held while a walk is made, so that concurrent requests share it.
    private let walking = Mutex(())

    init(indexer: Indexer, maximumAge: Duration = .seconds(2)) {
        self.scanner = indexer.scanner
        self.indexer = indexer
        self.maximumAge = maximumAge
    }

    /// The documents in the listing's name order.
    func documents() -> [ScannedDocument] {
        let changes = indexer.changeCount
        let (known, startRefresh) = state.withLock { state -> ([ScannedDocument]?, Bool) in
            guard let madeAt = state.madeAt, state.changes == changes else { return (nil, false) }
            guard ContinuousClock.now - madeAt >= maximumAge, !state.refreshing else { return (state.documents, false) }
            state.refreshing = true
            return (state.documents, true)
        }
        if startRefresh {
            Task.detached { [self] in
                _ = walk()
                state.withLock { $0.refreshing = false }
            }
        }
        return known ?? walk(unlessCurrentFor: changes)
    }

    /// Makes a walk and keeps it; with `changes`, none when another request just made one that is
    /// current for them.
    private func walk(unlessCurrentFor changes: Int? = nil) -> [ScannedDocument] {
        walking.withLock { _ in
            if let changes {
                let made = state.withLock { $0.madeAt != nil && $0.changes == changes ? $0.documents : nil }
                if let made { return made }
            }
            let changes = indexer.changeCount
            let documents = PreviewListing.inNameOrder(scanner.scan())
            state.withLock { state in
                state.documents = documents
                state.madeAt = .now
                state.changes = changes
            }
            return documents
        }
    }
}
