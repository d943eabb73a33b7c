import Foundation
import GlanceContainer
import GlanceCore
import GlancePipeline
import GlanceStore
import GlanceTestSupport
import Synchronization
import Testing

/// A container in a scratch folder with an indexer over it: a real SQLite sidecar and real
/// worker processes.
final class IndexedContainer: Sendable {
    let root: String
    let indexer: Indexer
    let store: SidecarStore
    let pool: RendererPool

    init(files: [String: String], renderers: Int = 2, workerArguments: [String] = []) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("indexer-\(UUID().uuidString)").path
        for (name, asset) in files {
            let target = root + "/" + name
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: TestLocations.asset(asset), toPath: target)
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let scanner = try ContainerScanner(container: root, excluding: [root + "/.thumbnails"])
        store = try SidecarStore(directory: root + "/.thumbnails")
        pool = RendererPool(
            configuration: .init(
                executable: TestLocations.worker, arguments: workerArguments, renderers: renderers, timeoutSeconds: 30))
        indexer = Indexer(scanner: scanner, store: store, pool: pool, options: .init(generatorVersion: "test"))
    }

    deinit {
        // Not stopBlocking()/shutdownBlocking(): a deinit at the end of an async test runs on one of
        // the cooperative pool's threads, which must not wait. The task kills or drains the
        // renderers and awaits their threads without holding one.
        Task { [pool] in await pool.shutdown() }
        try? FileManager.default.removeItem(atPath: root)
    }

    func file(_ name: String) -> String { root + "/" + name }
}

@Suite("Indexer", .timeLimit(.minutes(10)))
struct IndexerTests {
    @Test("every size of a document comes from one render: one job a document, all sizes saved together")
    func oneRenderEverySize() async throws {
        let container = try IndexedContainer(files: ["a.png": "png/rgb8.png", "letter.pdf": "pdf/letter.pdf"])
        let summary = try await container.indexer.catchUp(try await container.indexer.plan())
        #expect(summary.rendered == 2)
        #expect(container.indexer.rendersStarted == 2)
        for path in ["a.png", "letter.pdf"] {
            let stored = try #require(try await container.store.document(at: path, includingImageData: true))
            // Each size stored, but those the 1024 fits as it is (rgb8.png is 200x150: none).
            let standard = try #require(stored.thumbnails.first { $0.sizeKey == ThumbnailImage.standardSizeKey })
            let made = [256, 512].filter {
                !ThumbnailSizes.standardServes(side: $0, width: standard.width, height: standard.height)
            }
            #expect(
                Set(stored.thumbnails.map(\.sizeKey)) == Set(made.map(ThumbnailSizes.sizeKey(side:)) + ["1024x1024"]),
                "\(path)")
            #expect(path == "a.png" ? made.isEmpty : made == [256, 512], "\(path)")
            #expect(
                stored.thumbnails.allSatisfy { $0.thumbHash != nil && $0.thumbHash == stored.thumbnails[0].thumbHash })
            #expect(container.indexer.policy.state(of: stored, identity: stored.record.identity) == .fresh)
        }
    }

    @Test("ten concurrent renders of one document share one render")
    func coalescing() async throws {
        // A slow worker keeps the first render in flight while the other nine ask.
        let container = try IndexedContainer(
            files: ["slow.png": "png/rgb8.png"], workerArguments: ["--debug-slow-on", "slow.png"])
        let indexer = container.indexer
        let outcomes = await withTaskGroup(of: DocumentOutcome.self) { group in
            for _ in 0..<10 { group.addTask { await indexer.render("slow.png") } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(container.indexer.rendersStarted == 1)
        #expect(outcomes.count == 10)
        for outcome in outcomes {
            guard case .recorded(let stored) = outcome else {
                Issue.record("expected a record, got \(outcome)")
                continue
            }
            #expect(stored.record.state == .fresh)
        }
    }

    @Test("a batch does not render what another batch recorded after its plan was made")
    func renderedElsewhere() async throws {
        let container = try IndexedContainer(files: ["a.png": "png/rgb8.png", "b.png": "png/rgb8.png"])
        let plan = try await container.indexer.plan()
        #expect(plan.toRender.count == 2)
        // Another batch finishes a.png between this one's plan and its renders.
        let scanner = try ContainerScanner(container: container.root, excluding: [container.root + "/.thumbnails"])
        let identity = try #require(scanner.identity(of: "a.png"))
        let record = DocumentRecord(
            path: "a.png", identity: identity, contentType: .png, state: .fresh, generatorVersion: "test",
            generatedAt: plan.madeAt.addingTimeInterval(1))
        try await container.store.save(
            record,
            thumbnails: ["256x256", "512x512", "1024x1024"].map {
                ThumbnailImage(sizeKey: $0, format: .png, width: 10, height: 10, data: [1, 2, 3])
            })

        let summary = try await container.indexer.catchUp(plan)
        #expect(summary.renderedElsewhere == 1)
        #expect(container.indexer.rendersStarted == 1)
        let kept = try #require(try await container.store.document(at: "a.png", includingImageData: true))
        #expect(kept.thumbnails.first?.data == [1, 2, 3])
        let rendered = try #require(try await container.store.document(at: "b.png", includingImageData: false))
        #expect(rendered.record.state == .fresh)
    }

    @Test("a batch hands the pool its largest documents first, so that the renderers finish together")
    func largestFirst() async throws {
        let container = try IndexedContainer(files: [:], renderers: 1)
        let sizes = ["a.txt": 10, "b.txt": 3_000, "c.txt": 500, "d.txt": 3_000, "e/f.txt": 40_000]
        try FileManager.default.createDirectory(atPath: container.file("e"), withIntermediateDirectories: true)
        for (name, size) in sizes {
            try Data(repeating: UInt8(ascii: "x"), count: size).write(to: URL(fileURLWithPath: container.file(name)))
        }
        let started = Mutex<[String]>([])
        let summary = try await container.indexer.catchUp(try await container.indexer.plan()) { event in
            if case .started(let path) = event { started.withLock { $0.append(path) } }
        }
        #expect(summary.rendered == 5)
        // Ties in size go by path.
        #expect(started.withLock { $0 } == ["e/f.txt", "b.txt", "d.txt", "c.txt", "a.txt"])
    }

    @Test("refresh renders only what changed, drops what is gone, and tells subscribers")
    func refresh() async throws {
        let container = try IndexedContainer(files: [
            "a.png": "png/rgb8.png", "b.txt": "text/latin-utf8.txt", "c.pdf": "pdf/letter.pdf",
        ])
        let events = container.indexer.events()
        let first = await container.indexer.refresh(["a.png", "b.txt"])
        #expect(container.indexer.rendersStarted == 2)
        #expect(first.allSatisfy { if case .recorded(let s) = $0 { s.record.state == .fresh } else { false } })
        // Unchanged: a stat, no render. Gone: the record is dropped.
        try FileManager.default.removeItem(atPath: container.file("b.txt"))
        let second = await container.indexer.refresh(["a.png", "b.txt"])
        #expect(container.indexer.rendersStarted == 2)
        #expect(second.last == .removed(path: "b.txt"))
        #expect(try await container.store.document(at: "b.txt", includingImageData: false) == nil)
        // c.pdf was never asked for: refresh does not scan.
        #expect(try await container.store.document(at: "c.pdf", includingImageData: false) == nil)

        var seen: [IndexerEvent] = []
        for await event in events {
            seen.append(event)
            if seen.count == 3 { break }
        }
        #expect(seen.filter { if case .refreshed = $0 { true } else { false } }.count == 2)
        #expect(seen.last == .removed(path: "b.txt"))
    }

    @Test("refreshing one document of 10,000 costs no scan of the container")
    func refreshWithoutScan() async throws {
        let container = try IndexedContainer(files: ["target.txt": "text/latin-utf8.txt"])
        // 10,000 other documents, which a scan would walk past one stat each.
        for folder in 0..<10 {
            let path = container.file("bulk-\(folder)")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for index in 0..<1000 {
                FileManager.default.createFile(atPath: path + "/\(index).txt", contents: Data("x".utf8))
            }
        }
        let outcome = await container.indexer.refresh(["target.txt"])
        #expect(outcome.count == 1)
        #expect(container.indexer.rendersStarted == 1)
        #expect(container.indexer.scanner.directory.walks == 0)
        // Nothing but the one document has a record.
        #expect(try await container.store.allDocuments().map(\.record.path) == ["target.txt"])
        // A batch, by contrast, walks the container once.
        let plan = try await container.indexer.plan()
        #expect(container.indexer.scanner.directory.walks == 1)
        #expect(plan.toRender.count == 10_000)
    }

    @Test("a rename moves the record without a render")
    func move() async throws {
        let container = try IndexedContainer(files: ["old.png": "png/rgb8.png"])
        _ = await container.indexer.refresh(["old.png"])
        try FileManager.default.moveItem(atPath: container.file("old.png"), toPath: container.file("new.png"))
        let outcome = await container.indexer.move(from: "old.png", to: "new.png")
        #expect(container.indexer.rendersStarted == 1)
        guard case .recorded(let stored) = outcome else {
            Issue.record("expected the moved record, got \(outcome)")
            return
        }
        #expect(stored.record.path == "new.png" && stored.record.state == .fresh)
        #expect(try await container.store.document(at: "old.png", includingImageData: false) == nil)
    }
}
