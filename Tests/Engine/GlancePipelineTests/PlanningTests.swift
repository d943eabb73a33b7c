import Foundation
import GlanceContainer
import GlanceCore
import GlancePipeline
import GlanceStore
import Testing

/// A store held in memory, enough to plan against (the real one is tested in GlanceStoreTests).
final class MemoryStore: ThumbnailStore {
    let stored: [StoredDocument]
    init(_ documents: [StoredDocument]) { self.stored = documents }

    func document(at path: String, bytes: ThumbnailBytes) async throws(StoreError) -> StoredDocument? {
        stored.first { $0.record.path == path }
    }
    func documents(at paths: [String]) async throws(StoreError) -> [PathKey: StoredDocument] {
        Dictionary(stored.filter { paths.contains($0.record.path) }.map { (PathKey($0.record.path), $0) }) { a, _ in a }
    }
    func documents(after path: String?, limit: Int) async throws(StoreError) -> [StoredDocument] {
        Array(stored.filter { $0.record.path > (path ?? "") }.prefix(limit))
    }
    func allDocuments() async throws(StoreError) -> [StoredDocument] { stored }
    func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async throws(StoreError) {}
    func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) async throws(StoreError) {}
    func removeDocuments(at paths: [String]) async throws(StoreError) -> RemovalReport {
        RemovalReport(documents: 0, thumbnailBytes: 0)
    }
    func claim(paths: [String], under lease: Lease) async throws(StoreError) -> [String] { paths }
    func renew(_ lease: Lease) async throws(StoreError) {}
    func release(_ lease: Lease, paths: [String]?) async throws(StoreError) {}
    func releaseAbandonedClaims() async throws(StoreError) {}
    func setting(_ name: String) async throws(StoreError) -> String? { nil }
    func setSetting(_ name: String, to value: String?) async throws(StoreError) {}
    func totals() async throws(StoreError) -> StoreTotals { StoreTotals() }
}

func identity(_ inode: UInt64, size: Int64 = 100, mtime: Int64 = 1_000) -> FileIdentity {
    FileIdentity(device: 1, inode: inode, size: size, modifiedNanoseconds: mtime)
}

func stored(
    _ path: String, _ identity: FileIdentity, state: DocumentState = .fresh, version: String = "1",
    digest: String? = nil
)
    -> StoredDocument
{
    let record = DocumentRecord(
        path: path, identity: identity, digest: digest, contentType: .png, state: state,
        error: state == .failed ? "corrupt PNG data" : nil, generatorVersion: version)
    let thumbnails = state == .fresh ? [ThumbnailImage(format: .png, width: 10, height: 10, data: [1, 2, 3])] : []
    return StoredDocument(record: record, thumbnails: thumbnails)
}

@Suite("Freshness and planning", .timeLimit(.minutes(10)))
struct PlanningTests {
    let policy = FreshnessPolicy(generatorVersion: "1", sizes: .none)

    @Test(
        "a record is fresh only with every one of the store's smaller sizes, those the 1024 fits as it is counted held; sizes parse and refuse"
    )
    func smallerSizes() {
        // A 1024 of 600x400 fits no 256 or 512 box: both must be stored.
        var record = stored("a.png", identity(7))
        record.thumbnails = [ThumbnailImage(format: .png, width: 600, height: 400, data: [1, 2, 3])]
        let withSizes = FreshnessPolicy(generatorVersion: "1", sizes: .standard)
        #expect(withSizes.state(of: record, identity: identity(7)) == .stale)
        var complete = record
        for side in [256, 512] {
            complete.thumbnails.append(
                ThumbnailImage(
                    sizeKey: ThumbnailSizes.sizeKey(side: side), format: .png, width: side, height: side * 2 / 3,
                    data: [1]))
        }
        #expect(withSizes.state(of: complete, identity: identity(7)) == .fresh)
        // A 1024 of 300x200 fits the 512 box as it is: the 256 alone is stored, and answers for
        // itself; the 1024 answers for 512. One of 10x10 answers for both.
        var medium = record
        medium.thumbnails = [
            ThumbnailImage(format: .png, width: 300, height: 200, data: [1]),
            ThumbnailImage(sizeKey: "256x256", format: .webp, width: 256, height: 171, data: [2]),
        ]
        #expect(withSizes.state(of: medium, identity: identity(7)) == .fresh)
        #expect(medium.thumbnail(sizeKey: "512x512")?.sizeKey == "1024x1024")
        #expect(medium.thumbnail(sizeKey: "256x256")?.format == .webp)
        medium.thumbnails.removeLast()
        #expect(withSizes.state(of: medium, identity: identity(7)) == .stale)
        #expect(medium.thumbnail(sizeKey: "256x256") == nil && medium.thumbnail(sizeKey: "2048x2048") == nil)
        let small = stored("a.png", identity(7))
        #expect(withSizes.state(of: small, identity: identity(7)) == .fresh)
        #expect(small.thumbnail(sizeKey: "256x256")?.sizeKey == "1024x1024")
        #expect(
            FreshnessPolicy(generatorVersion: "1", sizes: ThumbnailSizes("128")!).decide(
                complete, identity: identity(7)) == .render)
        #expect(ThumbnailSizes("512, 256,256")?.sides == [256, 512])
        #expect(ThumbnailSizes("none") == ThumbnailSizes.none)
        #expect(ThumbnailSizes("1024") == nil && ThumbnailSizes("16") == nil && ThumbnailSizes("big") == nil)
        #expect(ThumbnailSizes.standard.description == "256,512" && ThumbnailSizes.side(ofSizeKey: "256x256") == 256)
    }

    @Test("fresh while size and mtime match; another inode (an NFS client, a restore) is not a change")
    func freshness() {
        let record = stored("a.png", identity(7))
        #expect(policy.decide(record, identity: identity(7)) == .keep(.fresh))
        #expect(policy.decide(record, identity: identity(7, size: 101)) == .render)
        #expect(policy.decide(record, identity: identity(7, mtime: 1_001)) == .render)
        #expect(policy.decide(record, identity: identity(8)) == .keep(.fresh))
        #expect(policy.decide(nil, identity: identity(7)) == .render)
        #expect(FreshnessPolicy(generatorVersion: "1", force: true).decide(record, identity: identity(7)) == .render)
    }

    @Test("failures are remembered until the file, the version or the user says otherwise")
    func failures() {
        let failed = stored("a.png", identity(7), state: .failed)
        #expect(policy.decide(failed, identity: identity(7)) == .keep(.failed))
        #expect(
            FreshnessPolicy(generatorVersion: "1", retryFailed: true).decide(failed, identity: identity(7)) == .render)
        #expect(FreshnessPolicy(generatorVersion: "2").decide(failed, identity: identity(7)) == .render)
        #expect(policy.decide(failed, identity: identity(7, size: 5)) == .render)
    }

    @Test("a record follows its renamed document by inode; a reused inode with other content does not match")
    func renames() async throws {
        let store = MemoryStore([stored("old.png", identity(7)), stored("gone.png", identity(9, mtime: 5))])
        let documents = [
            ScannedDocument(path: "new.png", identity: identity(7)),
            // Inode 9 reused by a different file (other mtime): it must be rendered.
            ScannedDocument(path: "other.png", identity: identity(9, mtime: 6)),
        ]
        let plan = try await GenerationPlan.make(documents: documents, store: store, policy: policy) { _ in nil }
        #expect(plan.moves.map(\.from) == ["old.png"])
        #expect(plan.moves.map(\.to) == ["new.png"])
        #expect(plan.toRender.map(\.path) == ["other.png"])
    }

    @Test("a record follows a copied-then-deleted document by digest, computed only for same-size candidates")
    func copies() async throws {
        let store = MemoryStore([stored("old.png", identity(7, size: 300), digest: "abc")])
        let documents = [
            ScannedDocument(path: "copy.png", identity: identity(20, size: 300)),
            ScannedDocument(path: "unrelated.png", identity: identity(21, size: 999)),
        ]
        var digested: [String] = []
        let plan = try await GenerationPlan.make(documents: documents, store: store, policy: policy) { path in
            digested.append(path)
            return path == "copy.png" ? "abc" : "zzz"
        }
        #expect(plan.moves.map(\.to) == ["copy.png"])
        #expect(plan.toRender.map(\.path) == ["unrelated.png"])
        #expect(digested == ["copy.png"])
    }
}
