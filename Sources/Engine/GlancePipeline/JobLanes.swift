/// The order in which a renderer pool takes its queued jobs: three lanes, one rule.
///
/// - **interactive** (a thumbnail a page or a save is waiting for) first;
/// - **preview** (a page drawn larger for a preview) next, but while batch work waits never on
///   more than half the renderers, and on a single renderer every other job: a storm of page
///   requests (a long PDF scrolled fast) slows a batch, never stops it;
/// - **batch** (batch work) in the order it came.
struct JobLanes<Job> {
    private var interactive: [Job] = []
    private var previews: [Job] = []
    private var batch: [Job] = []
    private var batchStart = 0
    /// Previews being drawn now, and whether the last job taken was one.
    private(set) var runningPreviews = 0
    private var lastWasPreview = false
    /// The pool's renderers, which the previews' share is counted against.
    let renderers: Int

    init(renderers: Int) {
        self.renderers = max(1, renderers)
    }

    /// Queues `job` in `lane`.
    mutating func append(_ job: Job, to lane: Lane) {
        switch lane {
        case .interactive: interactive.append(job)
        case .preview: previews.append(job)
        case .batch: batch.append(job)
        }
    }

    /// The next job to run and whether it is a preview (whose end ``finishedPreview()`` must
    /// report), or nil when nothing waits.
    mutating func next() -> (job: Job, isPreview: Bool)? {
        if !interactive.isEmpty {
            lastWasPreview = false
            return (interactive.removeFirst(), false)
        }
        let batchWaits = batchStart < batch.count
        let previewMayGo =
            !batchWaits || (runningPreviews < max(1, renderers / 2) && (renderers > 1 || !lastWasPreview))
        if !previews.isEmpty && previewMayGo {
            runningPreviews += 1
            lastWasPreview = true
            return (previews.removeFirst(), true)
        }
        lastWasPreview = false
        guard batchWaits else { return nil }
        let job = batch[batchStart]
        batchStart += 1
        if batchStart > 4096 {
            batch.removeFirst(batchStart)
            batchStart = 0
        }
        return (job, false)
    }

    /// The jobs waiting in each lane (for `glance_lane_depth`).
    var depths: (interactive: Int, preview: Int, batch: Int) {
        (interactive.count, previews.count, batch.count - batchStart)
    }

    /// A preview taken by ``next()`` ended.
    mutating func finishedPreview() {
        runningPreviews -= 1
    }

    /// Every queued job, the lanes emptied (a pool that stops).
    mutating func removeAll() -> [Job] {
        let all = interactive + previews + batch[batchStart...]
        interactive = []
        previews = []
        batch = []
        batchStart = 0
        return all
    }
}
