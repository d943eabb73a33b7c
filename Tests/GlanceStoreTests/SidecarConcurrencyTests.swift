import Foundation
import GlanceStore
import Synchronization
import Testing

/// Several stores on one folder at once, as a batch, a watcher and a server would be.
@Suite("Sidecar concurrency")
struct SidecarConcurrencyTests {
    @Test("two stores on one folder save 2 × 200 documents from several threads, losing none")
    func concurrentSaves() throws {
        let folder = try TemporaryFolder()
        let stores = [try SidecarStore(directory: folder.path), try SidecarStore(directory: folder.path)]
        let workers = 8
        let savesPerWorker = 50
        let errors = Mutex<[String]>([])

        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let store = stores[worker % 2]
            for index in 0..<savesPerWorker {
                let path = "w\(worker)/doc\(index).pdf"
                do {
                    try store.save(Fixtures.record(path), thumbnails: [Fixtures.image(seed: UInt8(index))])
                    // Reads interleave with the other store's writes.
                    if index.isMultiple(of: 10) {
                        _ = try store.document(at: path, includingImageData: true)
                    }
                } catch {
                    errors.withLock { $0.append("\(path): \(error)") }
                }
            }
        }

        #expect(errors.withLock { $0 }.isEmpty)
        for store in stores {
            let documents = try store.allDocuments()
            #expect(documents.count == workers * savesPerWorker)
            #expect(documents.allSatisfy { $0.thumbnails.count == 1 })
        }
        let sample = try #require(try stores[0].document(at: "w7/doc49.pdf", includingImageData: true))
        #expect(sample.thumbnails == [Fixtures.image(seed: 49)])
        #expect(try stores[1].checkIntegrity())
    }

    @Test("several stores opening a new folder at the same moment all succeed")
    func concurrentOpening() throws {
        let folder = try TemporaryFolder()
        let directory = folder.file("fresh")
        let opened = Mutex<[SidecarStore]>([])
        let errors = Mutex<[String]>([])

        DispatchQueue.concurrentPerform(iterations: 6) { index in
            do {
                let store = try SidecarStore(directory: directory)
                try store.save(Fixtures.record("opener\(index).txt"), thumbnails: [])
                opened.withLock { $0.append(store) }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }

        #expect(errors.withLock { $0 }.isEmpty)
        let stores = opened.withLock { $0 }
        #expect(stores.count == 6)
        let paths = try #require(stores.first).allDocuments().map(\.record.path)
        #expect(paths == (0..<6).map { "opener\($0).txt" })
    }

    @Test("a claim race between two stores grants each path to exactly one batch")
    func claimRace() throws {
        let folder = try TemporaryFolder()
        let stores = [try SidecarStore(directory: folder.path), try SidecarStore(directory: folder.path)]
        // Two live processes: this one and its parent.
        let pids = [getpid(), getppid()]
        let paths = (0..<300).map { "race/\($0).pdf" }
        let granted = Mutex<[[String]]>([[], []])
        let errors = Mutex<[String]>([])

        DispatchQueue.concurrentPerform(iterations: 2) { side in
            for chunk in stride(from: 0, to: paths.count, by: 10) {
                do {
                    let got = try stores[side].claim(
                        paths: Array(paths[chunk..<chunk + 10]), pid: pids[side], staleAfterSeconds: 3600)
                    granted.withLock { $0[side].append(contentsOf: got) }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }

        #expect(errors.withLock { $0 }.isEmpty)
        let (first, second) = granted.withLock { ($0[0], $0[1]) }
        #expect(Set(first).isDisjoint(with: second))
        #expect(Set(first).union(second) == Set(paths))
    }
}
