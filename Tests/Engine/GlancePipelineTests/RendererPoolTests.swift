import Foundation
import GlanceCore
import GlanceTestSupport
import Synchronization
import Testing

@testable import GlancePipeline

/// The `glance` executable built beside the tests: the pool starts it as its workers.
let rendererExecutable = TestLocations.worker
let assets = TestLocations.assets

@Suite("Worker pool", .timeLimit(.minutes(10)))
struct RendererPoolSupervisionTests {
    final class Recorder: Sendable {
        let finished = Mutex<[(Int, JobResult)]>([])
        let group = DispatchGroup()

        /// Returns once every job entered in ``group`` has finished, holding no thread meanwhile.
        func allFinished() async {
            await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        }
    }

    /// A job for the file at `path`, opened as the pipeline opens documents, under `name` (which
    /// the debug triggers match).
    func job(_ id: Int, _ path: String, name: String? = nil) -> (RenderJob, OpenFile) {
        let file = try! OpenFile.regularFile(atPath: path)
        return (RenderJob(id: id, name: name ?? path), file)
    }

    /// Runs `jobs` (id, path, name) on `pool`, waits for all, shuts the pool down (unless told
    /// not to); results by id.
    func run(_ jobs: [(Int, String, String?)], on pool: RendererPool, shuttingDown: Bool = true) async
        -> [Int: JobResult]
    {
        let recorder = Recorder()
        for (id, path, name) in jobs {
            recorder.group.enter()
            let (job, file) = job(id, path, name: name)
            pool.submit(job, file: file) { result in
                recorder.finished.withLock { $0.append((id, result)) }
                recorder.group.leave()
            }
        }
        await recorder.allFinished()
        if shuttingDown { await pool.shutdown() }
        return recorder.finished.withLock { Dictionary(uniqueKeysWithValues: $0.map { ($0.0, $0.1) }) }
    }

    func pool(renderers: Int, timeout: Double, arguments: [String] = []) -> RendererPool {
        RendererPool(
            configuration: .init(
                executable: rendererExecutable, arguments: arguments, renderers: renderers,
                timeoutSeconds: timeout))
    }

    @Test(
        "a comic book listing 9,900 pages of 4,250-character names is drawn within the default time limit, page 1 first in natural order"
    )
    func longPageNames() async {
        let results = await run(
            [(1, assets + "/comics/long-names.cb7", nil)],
            on: RendererPool(
                configuration: .init(
                    executable: rendererExecutable, arguments: [], renderers: 1,
                    limits: RendererLimits(timeoutSeconds: RendererLimits.defaultTimeoutSeconds))))
        guard case .finished(let outcome) = results[1] else {
            Issue.record("\(String(describing: results[1]))"); return
        }
        #expect(outcome.status == .rendered, "\(outcome.error ?? "")")
        #expect(outcome.details?.pageCount == 9900)
    }

    @Test(
        "a library that will not load in a worn renderer is a passing state: the document is drawn again by a fresh renderer, never recorded unsupported"
    )
    func libraryLoadRetried() async throws {
        let pool = pool(renderers: 1, timeout: 30, arguments: ["--debug-worn-out-on", "worn-*"])
        let results = await run(
            [(1, assets + "/png/rgb8.png", nil), (2, assets + "/pdf/letter.pdf", "worn-letter.pdf")], on: pool,
            shuttingDown: false)
        guard case .finished(let first) = results[1], case .finished(let second) = results[2] else {
            Issue.record("\(results)")
            return
        }
        #expect(first.status == .rendered)
        #expect(second.status == .rendered, "\(second.error ?? "")")
        #expect(pool.startedRenderers == 2, "the worn renderer was replaced")
        await pool.shutdown()
    }

    @Test("a job submitted to a stopped or shut-down pool ends cancelled at once, never left waiting")
    func submitAfterStop() async throws {
        // The race it closes: a batch stopped by SIGINT whose last task submitted one more job
        // after the stop waited for it forever, its pool's threads gone.
        for stopping in [true, false] {
            let pool = pool(renderers: 1, timeout: 5)
            if stopping { await pool.stop() } else { await pool.shutdown() }
            let outcome = Mutex<JobResult?>(nil)
            let (job, file) = job(1, assets + "/png/rgb8.png")
            pool.submit(job, file: file) { result in outcome.withLock { $0 = result } }
            // Ended at once: the outcome is there when submit returns, or within the default bound.
            try await eventually("the job ended") { outcome.withLock { $0 } != nil }
            let result = outcome.withLock { $0 }
            if case .cancelled = result {
            } else {
                Issue.record("expected cancelled, got \(String(describing: result))")
            }
        }
    }

    @Test("an interactive job goes ahead of the queued batch")
    func priorityLane() async throws {
        // One worker, busy on a hanging document until its time limit; meanwhile three batch jobs
        // and one interactive job queue up. The interactive one must be served next. (The limit
        // is 3 s: queueing four jobs takes milliseconds, but a loaded machine once took longer
        // than a 1 s limit between the first of them and the last.)
        let pool = pool(renderers: 1, timeout: 3, arguments: ["--debug-hang-on", "hang-*"])
        let recorder = Recorder()
        func submit(_ id: Int, _ path: String, _ lane: Lane, name: String? = nil) {
            recorder.group.enter()
            let (job, file) = job(id, path, name: name)
            pool.submit(job, file: file, lane: lane) { result in
                recorder.finished.withLock { $0.append((id, result)) }
                recorder.group.leave()
            }
        }
        submit(0, assets + "/png/rgb8.png", .batch, name: "hang-first.png")
        // The pool starts the worker once its thread has taken job 0 from the queue: from then on
        // the others queue behind it (a fixed pause could end first on a loaded machine).
        try await eventually("the renderer started for job 0") { pool.startedRenderers > 0 }
        #expect(pool.startedRenderers == 1)
        for id in 1...3 { submit(id, assets + "/png/rgb8.png", .batch) }
        submit(9, assets + "/png/gray8.png", .interactive)
        await recorder.allFinished()
        await pool.shutdown()
        let order = recorder.finished.withLock { $0.map(\.0) }
        #expect(order == [0, 9, 1, 2, 3])
        let first = recorder.finished.withLock { $0.first?.1 }
        if case .timedOut(let seconds, let limit) = first {
            #expect(seconds == 3 && limit == .time)
        } else {
            Issue.record("expected a timeout, got \(String(describing: first))")
        }
    }

    @Test("waiting for pools to stop holds no thread of the cooperative pool: other tasks run meanwhile")
    func stoppingDoesNotPark() async throws {
        // More pools than the cooperative pool has threads (one per processor), each with a
        // render that hangs until its 120-second timeout, and a task waiting for each pool to
        // shut down. A shutdown that blocked its thread would park them all: the probe task could
        // not run until a timeout ended a render. Waiting asynchronously, the probe runs at once,
        // and it is the probe that ends the renders (a stop kills them), whatever else the test
        // process is running meanwhile.
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let pools = (0..<count).map { _ in pool(renderers: 1, timeout: 120, arguments: ["--debug-hang-on", "hang-*"]) }
        for (index, pool) in pools.enumerated() {
            let (job, file) = job(index, assets + "/png/rgb8.png", name: "hang-\(index).png")
            pool.submit(job, file: file) { _ in }
        }
        let order = Order()
        let begun = Order()
        await withTaskGroup(of: Void.self) { group in
            for pool in pools {
                group.addTask {
                    begun.append("shutdown begun")
                    await pool.shutdown()
                    order.append("shut down")
                }
            }
            group.addTask {
                // Goes on once every shutdown has begun, so it runs only on a thread they left free.
                try? await eventually("every shutdown begun", within: .seconds(60)) {
                    begun.items.withLock { $0.count } == count
                }
                order.append("probe")
                for pool in pools { await pool.stop() }
            }
        }
        let seen = order.items.withLock { $0 }
        #expect(seen.count == count + 1)
        #expect(seen.first == "probe", "\(seen)")
    }

    /// What happened, in order, from several tasks.
    final class Order: Sendable {
        let items = Mutex<[String]>([])
        func append(_ item: String) { items.withLock { $0.append(item) } }
    }

    /// A pool of `renderers` whose first `ahead` start at once, and their processes once that many
    /// run.
    func poolStartingAhead(renderers: Int, ahead: Int) async throws -> (RendererPool, [pid_t]) {
        var configuration = RendererPool.Configuration(
            executable: rendererExecutable, arguments: [], renderers: renderers, timeoutSeconds: 30)
        configuration.renderersStartedAhead = ahead
        let pool = RendererPool(configuration: configuration)
        var processes: [pid_t] = []
        try await eventually("\(ahead) renderers started ahead") {
            processes = pool.rendererProcesses
            return processes.count >= ahead
        }
        return (pool, processes)
    }

    @Test("renderers started ahead run before any job, and only those")
    func onlySomeStartedAhead() async throws {
        let (pool, _) = try await poolStartingAhead(renderers: 3, ahead: 1)
        try await pool.shuttingDown {
            // A duration, not an event: what is looked for (more workers) must not happen.
            try await Task.sleep(for: .milliseconds(300))
            #expect(pool.rendererProcesses.count == 1, "the other two wait for jobs")
        }
    }

    @Test("a worker started ahead and killed while idle is replaced, and its job renders")
    func renderersStartedAhead() async throws {
        let (pool, processes) = try await poolStartingAhead(renderers: 2, ahead: 2)
        #expect(processes.count == 2)
        // Both die idle, before any job reaches them (each leads a process group of its own).
        for pid in processes { kill(-pid, SIGKILL) }
        // Dead (a zombie until the pool reaps it, or gone) before the jobs come.
        try await eventually("both renderers are dead") {
            processes.allSatisfy { pid in
                let stat = String(decoding: Bubblewrap.readToEnd("/proc/\(pid)/stat"), as: UTF8.self)
                return stat.isEmpty || stat.split(separator: ")").last?.split(separator: " ").first == "Z"
            }
        }
        let results = await run([(1, assets + "/png/rgb8.png", nil), (2, assets + "/png/gray8.png", nil)], on: pool)
        for id in [1, 2] {
            guard case .finished(let outcome) = results[id] else {
                Issue.record("job \(id): \(String(describing: results[id]))")
                continue
            }
            #expect(outcome.status == .rendered)
        }
    }

    @Test("a crashed worker is replaced and the next jobs succeed")
    func replacement() async {
        let pool = pool(renderers: 1, timeout: 30, arguments: ["--debug-crash-on", "crash-*"])
        let jobs: [(Int, String, String?)] = [
            (0, assets + "/png/rgb8.png", "crash-a.png"), (1, assets + "/png/rgb8.png", nil),
            (2, assets + "/png/rgb8.png", "crash-b.png"), (3, assets + "/pdf/letter.pdf", nil),
        ]
        let results = await run(jobs, on: pool)
        for id in [0, 2] {
            if case .crashed(let reason, _) = results[id] {
                #expect(reason == "renderer crashed (signal 11)")
            } else {
                Issue.record("job \(id) should have crashed")
            }
        }
        for id in [1, 3] {
            if case .finished(let outcome) = results[id] {
                #expect(outcome.status == .rendered)
                #expect(outcome.byteCount > 0 && outcome.data.count == outcome.byteCount)
            } else {
                Issue.record("job \(id) should have rendered")
            }
        }
    }

    @Test("the memory limit stops a blow-up in the worker, not in the batch")
    func memoryLimit() async {
        // 150 MiB of address space is plenty for ordinary documents, and too little for an
        // interlaced 6000x6000 RGBA PNG, which must be decoded whole (144 MB plus libpng's rows).
        let pool = pool(renderers: 1, timeout: 30, arguments: ["--memory-limit", "150"])
        let paths = ["/png/rgb8.png", "/png/interlaced-6000-rgba.png", "/pdf/letter.pdf"]
        let results = await run(paths.enumerated().map { ($0.offset, assets + $0.element, nil) }, on: pool)
        for id in [0, 2] {
            if case .finished(let outcome) = results[id] {
                #expect(outcome.status == .rendered, "\(paths[id])")
            } else {
                Issue.record("\(paths[id]) should render under the limit, got \(String(describing: results[id]))")
            }
        }
        switch results[1] {
        case .finished(let outcome): #expect(outcome.status == .failed)
        case .crashed: break
        default: Issue.record("expected a failure under the memory limit, got \(String(describing: results[1]))")
        }
    }

    @Test("a forged reply (wrong id, negative byte count) fails the job and replaces the worker")
    func forgedReply() async {
        let pool = pool(renderers: 1, timeout: 30, arguments: ["--debug-forge-reply-on", "forge-*"])
        let jobs: [(Int, String, String?)] = [
            (0, assets + "/png/rgb8.png", "forge-a.png"), (1, assets + "/png/rgb8.png", nil),
        ]
        let results = await run(jobs, on: pool)
        if case .crashed(let reason, _) = results[0] {
            #expect(reason == "renderer sent an invalid reply")
        } else {
            Issue.record("the forged reply should fail its job, got \(String(describing: results[0]))")
        }
        if case .finished(let outcome) = results[1] {
            #expect(outcome.status == .rendered && outcome.id == 1)
        } else {
            Issue.record("the next job should render on a new worker, got \(String(describing: results[1]))")
        }
    }

    @Test("a worker maps poppler-glib with its first PDF, not when it starts")
    func popplerLoadedByTheFirstPDF() async throws {
        // Loading poppler and the libraries it brings was half of a worker's start; a batch of
        // text or images should not pay it (see CPoppler).
        let pool = pool(renderers: 1, timeout: 30)
        try await pool.shuttingDown {
            func render(_ id: Int, _ path: String) async -> RenderOutcome? {
                guard case .finished(let outcome) = await run([(id, path, nil)], on: pool, shuttingDown: false)[id]
                else {
                    return nil
                }
                return outcome
            }
            func mappedFiles(_ process: pid_t) -> String {
                String(decoding: Bubblewrap.readToEnd("/proc/\(process)/maps"), as: UTF8.self)
            }
            #expect(await render(1, assets + "/text/latin-utf8.txt")?.status == .rendered)
            let worker = try #require(pool.rendererProcesses.first)
            let before = mappedFiles(worker)
            #expect(before.contains("libpango"), "the maps are the worker's own")
            #expect(!before.contains("libpoppler"))
            #expect(await render(2, assets + "/pdf/letter.pdf")?.status == .rendered)
            #expect(pool.rendererProcesses == [worker], "the same worker rendered both")
            #expect(mappedFiles(worker).contains("libpoppler-glib.so"))
        }
    }

    @Test("a worker maps libtiff, libheif, librsvg and FFmpeg with their first document, each, not before")
    func formatLibrariesLoadedOnFirstUse() async throws {
        // A batch without a HEIC must not pay for libheif's start (x265, libde265, dav1d, libaom),
        // nor one without an SVG for librsvg's: each is loaded by the first document that needs it.
        let pool = pool(renderers: 1, timeout: 30)
        try await pool.shuttingDown {
            func rendered(_ id: Int, _ path: String) async -> Bool {
                guard case .finished(let outcome) = await run([(id, path, nil)], on: pool, shuttingDown: false)[id]
                else {
                    return false
                }
                return outcome.status == .rendered
            }
            func mappedFiles(_ process: pid_t) -> String {
                String(decoding: Bubblewrap.readToEnd("/proc/\(process)/maps"), as: UTF8.self)
            }
            #expect(await rendered(1, assets + "/gif/still.gif"))
            let worker = try #require(pool.rendererProcesses.first)
            let libraries = ["libtiff.so", "libheif.so", "librsvg-2.so", "libavformat.so"]
            #expect(libraries.allSatisfy { !mappedFiles(worker).contains($0) }, "none after a GIF")
            for (id, document, library) in [
                (2, "/tiff/rgb8-lzw.tiff", "libtiff.so"), (3, "/heif/photo.heic", "libheif.so"),
                (4, "/svg/shapes.svg", "librsvg-2.so"), (5, "/media/fade-in.mp4", "libavformat.so"),
            ] {
                #expect(await rendered(id, assets + document), "\(document)")
                let maps = mappedFiles(worker)
                #expect(maps.contains(library), "\(library) after \(document)")
                let later = libraries.drop { $0 != library }.dropFirst()
                #expect(later.allSatisfy { !maps.contains($0) }, "only what was needed so far")
            }
            #expect(pool.rendererProcesses == [worker], "the same worker rendered them all")
        }
    }

    @Test("replies are checked against their job")
    func plausibility() {
        let job = RenderJob(id: 7, name: "a.png", maxSide: 1024)
        var reply = RenderOutcome(id: 7, status: .rendered, format: .png, width: 1024, height: 10, data: [1])
        #expect(RendererReplyReader.isPlausible(reply, for: job))
        reply.id = 8
        #expect(!RendererReplyReader.isPlausible(reply, for: job))
        reply.id = 7
        reply.byteCount = -1
        #expect(!RendererReplyReader.isPlausible(reply, for: job))
        reply.byteCount = Int.max
        #expect(!RendererReplyReader.isPlausible(reply, for: job))
        reply.byteCount = 1
        reply.width = 1025
        #expect(!RendererReplyReader.isPlausible(reply, for: job))
        let failed = RenderOutcome(id: 7, status: .failed, error: "corrupt")
        #expect(RendererReplyReader.isPlausible(failed, for: job))
        // Pixels for a terminal: RGBA within the box, four bytes a pixel exactly, no format.
        var pixelsJob = RenderJob(id: 9, name: "stored-thumbnail.png", maxSide: 200)
        pixelsJob.pixelsOnly = true
        var pixels = RenderOutcome(
            id: 9, status: .rendered, format: nil, width: 200, height: 150, data: [UInt8](repeating: 0, count: 120_000))
        #expect(RendererReplyReader.isPlausible(pixels, for: pixelsJob))
        pixels.byteCount = 119_999
        #expect(!RendererReplyReader.isPlausible(pixels, for: pixelsJob))
        pixels.byteCount = 120_000
        pixels.format = .png
        #expect(!RendererReplyReader.isPlausible(pixels, for: pixelsJob))
        pixels.format = nil
        pixels.width = 201
        #expect(!RendererReplyReader.isPlausible(pixels, for: pixelsJob))
    }
}

@Suite("Job lanes", .timeLimit(.minutes(10)))
struct JobLanesTests {
    /// Takes every job, as a pool of `workers` threads would: a preview's worker frees itself
    /// once `previewTakes` more jobs were taken (1: at once, as on one worker).
    func order(renderers: Int, previews: Int, batch: Int, previewTakes: Int) -> [String] {
        var lanes = JobLanes<String>(renderers: renderers)
        for index in 1...previews { lanes.append("p\(index)", to: .preview) }
        for index in 1...batch { lanes.append("n\(index)", to: .batch) }
        lanes.append("i", to: .interactive)
        var taken: [String] = []
        var previewsRunning: [Int] = []
        while let (job, isPreview) = lanes.next() {
            taken.append(job)
            if isPreview { previewsRunning.append(taken.count) }
            // Previews that have run long enough end.
            while let first = previewsRunning.first, taken.count - first >= previewTakes - 1 {
                previewsRunning.removeFirst()
                lanes.finishedPreview()
            }
        }
        return taken
    }

    @Test(
        "interactive first; previews ahead of the batch on at most half the renderers while it waits; all when it is done"
    )
    func twoWorkers() {
        // Two workers, each preview ending after two more jobs were taken: one preview at a time
        // beside the batch, then the rest of the previews.
        #expect(
            order(renderers: 2, previews: 4, batch: 3, previewTakes: 2) == [
                "i", "p1", "n1", "p2", "n2", "p3", "n3", "p4",
            ])
        #expect(
            order(renderers: 4, previews: 5, batch: 2, previewTakes: 9) == [
                "i", "p1", "p2", "n1", "n2", "p3", "p4", "p5",
            ])
    }

    @Test("on one worker, previews and the batch take turns")
    func oneWorker() {
        #expect(
            order(renderers: 1, previews: 3, batch: 3, previewTakes: 1) == ["i", "p1", "n1", "p2", "n2", "p3", "n3"])
    }

    @Test("a stopped pool's lanes give back every queued job")
    func removeAll() {
        var lanes = JobLanes<Int>(renderers: 2)
        lanes.append(1, to: .batch)
        lanes.append(2, to: .preview)
        lanes.append(3, to: .interactive)
        _ = lanes.next()
        #expect(Set(lanes.removeAll()) == [1, 2])
        #expect(lanes.next() == nil)
    }
}
