import Foundation
import GlanceCore
import GlancePostgresStore
import GlanceStore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Several stores on one folder or database at once, as a batch, a watcher and a server would
/// be (or several hosts): run against every store.
@Suite("Store concurrency", .timeLimit(.minutes(10)))
struct StoreConcurrencyTests {
    @Test(
        "two stores on one backing save 2 × 200 documents from several tasks, losing none",
        arguments: StoreKind.allCases)
    func concurrentSaves(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let stores = [subject.store, try await subject.another()]
        let workers = 8
        let savesPerWorker = 50
        let errors = await withTaskGroup(of: [String].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let store = stores[worker % 2]
                    var errors: [String] = []
                    for index in 0..<savesPerWorker {
                        let path = "w\(worker)/doc\(index).pdf"
                        do {
                            try await store.save(
                                Fixtures.record(path), thumbnails: [Fixtures.image(seed: UInt8(index))])
                            // Reads interleave with the other store's writes.
                            if index.isMultiple(of: 10) {
                                _ = try await store.document(at: path, includingImageData: true)
                            }
                        } catch {
                            errors.append("\(path): \(error)")
                        }
                    }
                    return errors
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }

        #expect(errors.isEmpty)
        for store in stores {
            let documents = try await store.allDocuments()
            #expect(documents.count == workers * savesPerWorker)
            #expect(documents.allSatisfy { $0.thumbnails.count == 1 })
        }
        let sample = try #require(try await stores[0].document(at: "w7/doc49.pdf", includingImageData: true))
        #expect(sample.thumbnails == [Fixtures.image(seed: 49)])
        if let sidecar = stores[1] as? SidecarStore {
            #expect(try await sidecar.checkIntegrity())
        }
    }

    @Test(
        "several stores opening a new folder or database at the same moment all succeed", arguments: StoreKind.allCases)
    func concurrentOpening(kind: StoreKind) async throws {
        let folder = try TemporaryFolder()
        let directory = folder.file("fresh")
        // A database without the schema yet: every opener races to migrate it.
        let database = await kind == .postgres ? try StoreUnderTest.freshDatabase() : nil
        let results = await withTaskGroup(of: Result<any ThumbnailStore, any Error>.self) { group in
            for index in 0..<6 {
                group.addTask {
                    do {
                        let store: any ThumbnailStore =
                            if let database {
                                try await PostgresStore.open(database, container: "test")
                            } else {
                                try SidecarStore(directory: directory)
                            }
                        try await store.save(Fixtures.record("opener\(index).txt"), thumbnails: [])
                        return .success(store)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        let stores = results.compactMap { try? $0.get() }
        #expect(stores.count == 6, "\(results)")
        let paths = try await #require(stores.first).allDocuments().map(\.record.path)
        #expect(paths == (0..<6).map { "opener\($0).txt" })
    }

    @Test("a claim race between two stores grants each path to exactly one batch", arguments: StoreKind.allCases)
    func claimRace(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let stores = [subject.store, try await subject.another()]
        // Two live leases: this process and its parent.
        let leases = [
            Lease(token: "a", host: Lease.thisHost, pid: getpid(), seconds: 3600),
            Lease(token: "b", host: Lease.thisHost, pid: getppid(), seconds: 3600),
        ]
        let paths = (0..<300).map { "race/\($0).pdf" }
        let results = await withTaskGroup(of: (Int, [String], [String]).self) { group in
            for side in 0..<2 {
                group.addTask {
                    var granted: [String] = []
                    var errors: [String] = []
                    for chunk in stride(from: 0, to: paths.count, by: 10) {
                        do {
                            granted += try await stores[side].claim(
                                paths: Array(paths[chunk..<chunk + 10]), under: leases[side])
                        } catch {
                            errors.append("\(error)")
                        }
                    }
                    return (side, granted, errors)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }
        }

        #expect(results.allSatisfy { $0.2.isEmpty })
        let (first, second) = (results[0].1, results[1].1)
        #expect(Set(first).isDisjoint(with: second))
        #expect(Set(first).union(second) == Set(paths))
    }
}
