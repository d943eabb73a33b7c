import Foundation
import GlancePipeline
import GlanceTestSupport
import Synchronization
import Testing

/// The `glance` executable built beside the tests: the pool starts it as its workers.
let glanceExecutable = TestLocations.glance
let assets = TestLocations.assets

@Suite("Worker pool")
struct WorkerPoolTests {
    final class Recorder: Sendable {
        let finished = Mutex<[(Int, JobResult)]>([])
        let group = DispatchGroup()
    }

    /// Runs `jobs` (id, path) on `pool`, waits for all, shuts the pool down; results by id.
    func run(_ jobs: [(Int, String)], on pool: WorkerPool) -> [Int: JobResult] {
        let recorder = Recorder()
        for (id, path) in jobs {
            recorder.group.enter()
            pool.submit(RenderJob(id: id, path: path)) { result in
                recorder.finished.withLock { $0.append((id, result)) }
                recorder.group.leave()
            }
        }
        recorder.group.wait()
        pool.shutdown()
        return recorder.finished.withLock { Dictionary(uniqueKeysWithValues: $0.map { ($0.0, $0.1) }) }
    }

    func pool(workers: Int, timeout: Double, arguments: [String] = []) -> WorkerPool {
        WorkerPool(
            configuration: .init(
                executable: glanceExecutable, arguments: ["worker"] + arguments, workers: workers,
                timeoutSeconds: timeout))
    }

    @Test("an interactive job goes ahead of the queued batch")
    func priorityLane() {
        // One worker, busy for a second on a hanging document; meanwhile three batch jobs and one
        // interactive job queue up. The interactive one must be served next.
        let pool = pool(workers: 1, timeout: 1, arguments: ["--debug-hang-on", "hang-*"])
        let recorder = Recorder()
        func submit(_ id: Int, _ path: String, _ priority: WorkerPool.Priority) {
            recorder.group.enter()
            pool.submit(RenderJob(id: id, path: path), priority: priority) { result in
                recorder.finished.withLock { $0.append((id, result)) }
                recorder.group.leave()
            }
        }
        submit(0, "/nonexistent/hang-first.png", .normal)
        usleep(200_000)
        for id in 1...3 { submit(id, assets + "/png/rgb8.png", .normal) }
        submit(9, assets + "/png/gray8.png", .interactive)
        recorder.group.wait()
        pool.shutdown()
        let order = recorder.finished.withLock { $0.map(\.0) }
        #expect(order == [0, 9, 1, 2, 3])
        let first = recorder.finished.withLock { $0.first?.1 }
        if case .timedOut(let seconds) = first {
            #expect(seconds == 1)
        } else {
            Issue.record("expected a timeout, got \(String(describing: first))")
        }
    }

    @Test("a crashed worker is replaced and the next jobs succeed")
    func replacement() {
        let pool = pool(workers: 1, timeout: 30, arguments: ["--debug-crash-on", "crash-*"])
        let jobs = [
            (0, "/x/crash-a.png"), (1, assets + "/png/rgb8.png"), (2, "/x/crash-b.png"),
            (3, assets + "/pdf/letter.pdf"),
        ]
        let results = run(jobs, on: pool)
        for id in [0, 2] {
            if case .crashed(let reason) = results[id] {
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
    func memoryLimit() {
        // 150 MiB of address space is plenty for ordinary documents, and too little for an
        // interlaced 4000x4000 RGBA PNG, which must be decoded whole (64 MB plus libpng's rows).
        let pool = pool(workers: 1, timeout: 30, arguments: ["--memory-limit", "150"])
        let paths = ["/png/rgb8.png", "/png/interlaced-4000-rgba.png", "/pdf/letter.pdf"]
        let results = run(paths.enumerated().map { ($0.offset, assets + $0.element) }, on: pool)
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
}
