import Foundation
import GlanceCore
import GlancePipeline
import GlanceRender
import GlanceStore
import Testing

/// A store held in memory, enough to plan against (the real one is tested in GlanceStoreTests).
final class MemoryStore: ThumbnailStore {
    let documents: [StoredDocument]
    init(_ documents: [StoredDocument]) { self.documents = documents }

    func document(at path: String, includingImageData: Bool) throws(StoreError) -> StoredDocument? {
        documents.first { $0.record.path == path }
    }
    func allDocuments() throws(StoreError) -> [StoredDocument] { documents }
    func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) throws(StoreError) {}
    func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) throws(StoreError) {}
    func removeDocuments(at paths: [String]) throws(StoreError) -> RemovalReport {
        RemovalReport(documents: 0, thumbnailBytes: 0)
    }
    func claim(paths: [String], pid: Int32, staleAfterSeconds: Double) throws(StoreError) -> [String] { paths }
    func releaseClaims(pid: Int32) throws(StoreError) {}
    func releaseClaims(paths: [String], pid: Int32) throws(StoreError) {}
    func releaseClaimsOfEndedProcesses() throws(StoreError) {}
    func sizeOnDisk() -> Int64 { 0 }
    func checkIntegrity() throws(StoreError) -> Bool { true }
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

@Suite("Freshness and planning")
struct PlanningTests {
    let policy = FreshnessPolicy(generatorVersion: "1")

    @Test("fresh only when size, mtime, device and inode all match")
    func freshness() {
        let record = stored("a.png", identity(7))
        #expect(policy.decide(record, identity: identity(7)) == .keep(.fresh))
        #expect(policy.decide(record, identity: identity(7, size: 101)) == .render)
        #expect(policy.decide(record, identity: identity(7, mtime: 1_001)) == .render)
        #expect(policy.decide(record, identity: identity(8)) == .render)
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
    func renames() throws {
        let store = MemoryStore([stored("old.png", identity(7)), stored("gone.png", identity(9, mtime: 5))])
        let documents = [
            ScannedDocument(path: "new.png", identity: identity(7)),
            // Inode 9 reused by a different file (other mtime): it must be rendered.
            ScannedDocument(path: "other.png", identity: identity(9, mtime: 6)),
        ]
        let plan = try GenerationPlan.make(documents: documents, store: store, policy: policy) { _ in nil }
        #expect(plan.moves.map(\.from) == ["old.png"])
        #expect(plan.moves.map(\.to) == ["new.png"])
        #expect(plan.toRender.map(\.path) == ["other.png"])
    }

    @Test("a record follows a copied-then-deleted document by digest, computed only for same-size candidates")
    func copies() throws {
        let store = MemoryStore([stored("old.png", identity(7, size: 300), digest: "abc")])
        let documents = [
            ScannedDocument(path: "copy.png", identity: identity(20, size: 300)),
            ScannedDocument(path: "unrelated.png", identity: identity(21, size: 999)),
        ]
        var digested: [String] = []
        let plan = try GenerationPlan.make(documents: documents, store: store, policy: policy) { path in
            digested.append(path)
            return path == "copy.png" ? "abc" : "zzz"
        }
        #expect(plan.moves.map(\.to) == ["copy.png"])
        #expect(plan.toRender.map(\.path) == ["unrelated.png"])
        #expect(digested == ["copy.png"])
    }
}

@Suite("Container scan")
struct ScannerTests {
    @Test("walks the tree, skipping hidden names, the store folder and links that leave the container")
    func scan() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manager = FileManager.default
        for folder in ["a/b", ".hidden", "store"] {
            try manager.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for file in ["one.txt", "a/two.txt", "a/b/three.txt", ".hidden/no.txt", ".no.txt", "store/no.sqlite"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/" + file))
        }
        try manager.createSymbolicLink(atPath: root + "/out.txt", withDestinationPath: "/etc/hostname")
        try manager.createSymbolicLink(atPath: root + "/in.txt", withDestinationPath: "one.txt")
        try manager.createSymbolicLink(atPath: root + "/a/up.txt", withDestinationPath: "../one.txt")
        // Absolute links are not followed, even to a file inside: resolving them would depend on
        // the path above the container, which the container does not control.
        try manager.createSymbolicLink(atPath: root + "/absolute.txt", withDestinationPath: root + "/one.txt")
        try manager.createSymbolicLink(atPath: root + "/climb.txt", withDestinationPath: "../../etc/hostname")
        try manager.createSymbolicLink(atPath: root + "/loop", withDestinationPath: root)
        #expect(mkfifo(root + "/fifo.txt", 0o644) == 0)
        let scanner = try ContainerScanner(container: root, excluding: [root + "/store"])
        let scan = scanner.scanReporting()
        #expect(scan.documents.map(\.path) == ["a/b/three.txt", "a/two.txt", "a/up.txt", "in.txt", "one.txt"])
        #expect(scan.skipped.hidden == 2)
        #expect(scan.skipped.linksNotFollowed == 4)
        #expect(scan.skipped.notRegularFiles == 1)
        #expect(scan.unreadableFolders.isEmpty)
        #expect(scanner.identity(of: "in.txt") == scanner.identity(of: "one.txt"))
        #expect(scanner.identity(of: "../etc/hostname") == nil)
        #expect(throws: FileAccessError.outside) { try scanner.open("climb.txt") }
        #expect(throws: FileAccessError.notRegularFile(kind: "a FIFO")) { try scanner.open("fifo.txt") }
        #expect(throws: ContainerError.self) { try ContainerScanner(container: root + "/one.txt") }
    }
}
