import Foundation
import GlanceCore
import Testing

/// Saving, loading, moving and removing documents: one suite, run against every store (a real
/// SQLite sidecar and a real PostgreSQL server).
@Suite("Store documents", .timeLimit(.minutes(10)))
struct StoreDocumentTests {
    @Test(
        "a saved record and its thumbnails load back, with every size's image data, with none, with one size's",
        arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        var record = Fixtures.record("reports/2026/q3.pdf")
        // A PDF's pages come back as they were saved, fractional points included.
        record.details = DocumentDetails(
            pageCount: 3,
            pageSizes: [
                .init(width: 595.276, height: 841.89, count: 2), .init(width: 842, height: 595, count: 1),
            ])
        let large = Fixtures.image(byteCount: 5000, seed: 3)
        let small = Fixtures.image(sizeKey: "256x256", format: .jpeg, byteCount: 700, seed: 9)
        try await store.save(record, thumbnails: [large, small])

        let full = try #require(try await store.document(at: record.path, includingImageData: true))
        #expect(full.record == record)
        // Size keys come back in order: "1024x1024" sorts before "256x256".
        #expect(full.thumbnails == [large, small])

        let light = try #require(try await store.document(at: record.path, includingImageData: false))
        #expect(light.record == record)
        #expect(light.thumbnails == [Fixtures.withoutData(large), Fixtures.withoutData(small)])
        #expect(light.thumbnails.allSatisfy { $0.data == nil })
        #expect(light.thumbnails.map(\.byteCount) == [5000, 700])

        // One size's bytes (a GET of that size): the others described, without theirs.
        let one = try #require(try await store.document(at: record.path, bytes: .only("256x256")))
        #expect(one.record == record)
        #expect(one.thumbnails == [Fixtures.withoutData(large), small])
        let other = try #require(try await store.document(at: record.path, bytes: .only("1024x1024")))
        #expect(other.thumbnails == [large, Fixtures.withoutData(small)])
        let absent = try #require(try await store.document(at: record.path, bytes: .only("512x512")))
        #expect(absent.thumbnails == light.thumbnails)

        #expect(try await store.document(at: "reports/2026/q4.pdf", includingImageData: true) == nil)
    }

    @Test(
        "settings: per container, kept across openings, cleared by nil; the sizes setting is read and checked",
        arguments: StoreKind.allCases)
    func settings(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        #expect(try await store.setting(ThumbnailSizes.settingName) == nil)
        #expect(try await store.thumbnailSizes() == .standard)
        try await store.setSetting(ThumbnailSizes.settingName, to: "128")
        try await store.setSetting(ThumbnailSizes.settingName, to: "128,384")
        let reopened = try await subject.another()
        #expect(try await reopened.thumbnailSizes().sides == [128, 384])
        // Another container on the same backing has its own.
        let other = try await subject.another(container: "/elsewhere")
        #expect(try await other.setting(ThumbnailSizes.settingName) == nil)
        // A value another program wrote is refused, not guessed at.
        try await other.setSetting(ThumbnailSizes.settingName, to: "huge")
        await #expect(throws: StoreError.self) { try await other.thumbnailSizes() }
        try await store.setSetting(ThumbnailSizes.settingName, to: nil)
        #expect(try await reopened.setting(ThumbnailSizes.settingName) == nil)
    }

    @Test("failed and unsupported records keep their reason, with no thumbnails", arguments: StoreKind.allCases)
    func failedRecord(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        var record = Fixtures.record("locked.pdf", state: .failed, error: "encrypted PDF, needs a password")
        record.contentType = nil
        record.digest = nil
        record.renderMilliseconds = nil
        try await store.save(record, thumbnails: [])
        let loaded = try #require(try await store.document(at: "locked.pdf", includingImageData: true))
        #expect(loaded.record == record)
        #expect(loaded.thumbnails.isEmpty)
    }

    @Test("generatedAt keeps millisecond precision", arguments: StoreKind.allCases)
    func datePrecision(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        var record = Fixtures.record("now.txt")
        record.generatedAt = Date()
        try await store.save(record, thumbnails: [])
        let loaded = try #require(try await store.document(at: "now.txt", includingImageData: false))
        #expect(abs(loaded.record.generatedAt.timeIntervalSince(record.generatedAt)) < 0.001)
    }

    @Test(
        "saving again at a path replaces the record and its whole thumbnail dictionary", arguments: StoreKind.allCases)
    func upsertReplacesThumbnails(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        try await store.save(
            Fixtures.record("a.png", size: 10),
            thumbnails: [Fixtures.image(seed: 1), Fixtures.image(sizeKey: "256x256", seed: 2)])
        let replacement = Fixtures.image(format: .jpeg, byteCount: 90, seed: 5)
        let newer = Fixtures.record("a.png", size: 20)
        try await store.save(newer, thumbnails: [replacement])

        let loaded = try #require(try await store.document(at: "a.png", includingImageData: true))
        #expect(loaded.record == newer)
        #expect(loaded.thumbnails == [replacement])
        #expect(try await store.allDocuments().count == 1)
    }

    @Test("a thumbnail without image data is refused, and the store is left as it was", arguments: StoreKind.allCases)
    func saveWithoutDataFails(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        let original = Fixtures.image(seed: 4)
        try await store.save(Fixtures.record("b.pdf"), thumbnails: [original])
        let error = await #expect(throws: StoreError.self) {
            try await store.save(Fixtures.record("b.pdf", size: 99), thumbnails: [Fixtures.withoutData(original)])
        }
        #expect(error?.message.contains("no image data") == true)
        let loaded = try #require(try await store.document(at: "b.pdf", includingImageData: true))
        #expect(loaded.record.identity.size == 1234, "the failed save rolled back")
        #expect(loaded.thumbnails == [original])
    }

    @Test(
        "a move keeps the thumbnails, takes the new identity and replaces a record at the target",
        arguments: StoreKind.allCases)
    func moveDocument(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        let moved = Fixtures.image(byteCount: 400, seed: 7)
        try await store.save(Fixtures.record("old/name.pdf", inode: 1), thumbnails: [moved])
        try await store.save(Fixtures.record("new/name.pdf", inode: 2), thumbnails: [Fixtures.image(seed: 8)])

        let identity = FileIdentity(device: 5, inode: 77, size: 4321, modifiedNanoseconds: 99)
        try await store.moveDocument(from: "old/name.pdf", to: "new/name.pdf", identity: identity)

        #expect(try await store.document(at: "old/name.pdf", includingImageData: false) == nil)
        let loaded = try #require(try await store.document(at: "new/name.pdf", includingImageData: true))
        #expect(loaded.record.identity == identity)
        #expect(loaded.record.path == "new/name.pdf")
        #expect(loaded.record.digest == Fixtures.record("x").digest)
        #expect(loaded.thumbnails == [moved])
        #expect(try await store.allDocuments().map(\.record.path) == ["new/name.pdf"])
    }

    @Test(
        "moving a path that has no record does nothing: two batches may plan the same move",
        arguments: StoreKind.allCases)
    func moveMissing(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        let record = Fixtures.record("a.pdf")
        try await store.save(record, thumbnails: [])
        try await store.moveDocument(from: "a.pdf", to: "b.pdf", identity: record.identity)
        // The second batch's move of the same rename finds nothing at a.pdf.
        try await store.moveDocument(from: "a.pdf", to: "b.pdf", identity: record.identity)
        try await store.moveDocument(from: "ghost.pdf", to: "c.pdf", identity: record.identity)
        #expect(try await store.allDocuments().map(\.record.path) == ["b.pdf"])
    }

    @Test("removal reports the documents and thumbnail bytes it removed", arguments: StoreKind.allCases)
    func removeDocuments(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        try await store.save(
            Fixtures.record("one.pdf"),
            thumbnails: [Fixtures.image(byteCount: 100), Fixtures.image(sizeKey: "256x256", byteCount: 20)])
        try await store.save(Fixtures.record("two.pdf"), thumbnails: [Fixtures.image(byteCount: 1000)])
        try await store.save(Fixtures.record("three.pdf"), thumbnails: [Fixtures.image(byteCount: 7)])
        try await store.save(Fixtures.record("failed.pdf", state: .failed, error: "truncated"), thumbnails: [])

        let report = try await store.removeDocuments(at: ["one.pdf", "two.pdf", "failed.pdf", "absent.pdf", "one.pdf"])
        #expect(report == RemovalReport(documents: 3, thumbnailBytes: 1120))
        #expect(try await store.allDocuments().map(\.record.path) == ["three.pdf"])
        #expect(try await store.removeDocuments(at: []) == RemovalReport(documents: 0, thumbnailBytes: 0))
    }

    @Test(
        "two names equal only under canonical equivalence (é as one code point, and e + U+0301) are two documents, each claimed and read as its own",
        arguments: StoreKind.allCases)
    func canonicallyEqualNames(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        let composed = "caf\u{E9}.cbz"
        let decomposed = "cafe\u{301}.cbz"
        #expect(composed == decomposed, "Swift's String equates them: the reason for PathKey")
        try await store.save(Fixtures.record(composed, inode: 1), thumbnails: [Fixtures.image()])
        try await store.save(Fixtures.record(decomposed, inode: 2, state: .failed, error: "broken"), thumbnails: [])
        let both = try await store.documents(at: [composed, decomposed])
        #expect(both.count == 2)
        #expect(both[PathKey(composed)]?.record.identity.inode == 1)
        #expect(both[PathKey(decomposed)]?.record.identity.inode == 2)
        #expect(both[PathKey(decomposed)]?.record.state == .failed)
        let lease = Lease(token: UUID().uuidString, host: Lease.thisHost, pid: getpid(), seconds: 3600)
        let granted = try await store.claim(paths: [composed, decomposed], under: lease)
        #expect(granted.map { Array($0.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])
    }

    @Test("pages follow the paths' byte order, whatever the locale", arguments: StoreKind.allCases)
    func paging(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        // Byte order: "B" (0x42) before "a", and "é" (0xC3 0xA9) after "z".
        let paths = ["z.pdf", "é.pdf", "a.pdf", "B.pdf", "b.pdf"]
        for path in paths { try await store.save(Fixtures.record(path), thumbnails: [Fixtures.image()]) }
        var pages: [[String]] = []
        var last: String?
        while true {
            let page = try await store.documents(after: last, limit: 2)
            if page.isEmpty { break }
            pages.append(page.map(\.record.path))
            last = page.last?.record.path
        }
        #expect(pages == [["B.pdf", "a.pdf"], ["b.pdf", "z.pdf"], ["é.pdf"]])
        #expect(try await store.allDocuments().map(\.record.path) == ["B.pdf", "a.pdf", "b.pdf", "z.pdf", "é.pdf"])
        let some = try await store.documents(at: ["a.pdf", "é.pdf", "nowhere.pdf", "a.pdf"])
        #expect(Set(some.keys) == ["a.pdf", "é.pdf"])
        #expect(some["é.pdf"]?.thumbnails.first?.data == nil, "listings carry no image bytes")
        #expect(try await store.totals() == StoreTotals(documents: [.fresh: 5], thumbnailBytes: 1500))
    }

    @Test("allDocuments over 2,000 documents lists every thumbnail without its bytes", arguments: StoreKind.allCases)
    func allDocumentsWithoutBlobs(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        let count = 2000
        for index in 0..<count {
            var thumbnails = [Fixtures.image(byteCount: 200 + index % 50, seed: UInt8(index % 256))]
            if index.isMultiple(of: 3) {
                thumbnails.append(Fixtures.image(sizeKey: "256x256", format: .jpeg, byteCount: 64))
            }
            try await store.save(Fixtures.record(String(format: "docs/%05d.pdf", index)), thumbnails: thumbnails)
        }
        let clock = ContinuousClock()
        var documents: [StoredDocument] = []
        let elapsed = try await clock.measure { documents = try await store.allDocuments() }

        #expect(documents.count == count)
        #expect(documents.map(\.record.path) == (0..<count).map { String(format: "docs/%05d.pdf", $0) })
        #expect(documents.allSatisfy { $0.thumbnails.allSatisfy { $0.data == nil } })
        #expect(documents[4].thumbnails.map(\.byteCount) == [204])
        #expect(documents[3].thumbnails.map(\.sizeKey) == ["1024x1024", "256x256"])
        #expect(documents.map(\.thumbnails.count).reduce(0, +) == count + (count + 2) / 3)
        // A hang guard only: how fast a listing is belongs to a benchmark, not to a test on a
        // shared machine (one query for the rows and one for the thumbnails, not one per row,
        // is what keeps it far under this).
        #expect(elapsed < .seconds(60))
    }
}
