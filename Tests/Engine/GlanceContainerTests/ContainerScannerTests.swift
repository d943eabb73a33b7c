import Foundation
import GlanceContainer
import GlanceCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Container scan", .timeLimit(.minutes(10)))
struct ScannerTests {
    @Test(
        "a folder holding Glance's CACHEDIR.TAG is a store wherever it lies, not documents; another cache's tag is not")
    func otherStores() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manager = FileManager.default
        for folder in ["kept/thumbs", "other-cache", "notes"] {
            try manager.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        // Another container's store (or a --store kept here), under any name.
        try Data(StoreTag.content.utf8).write(to: URL(fileURLWithPath: root + "/kept/thumbs/CACHEDIR.TAG"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/kept/thumbs/thumbnails.sqlite"))
        // Another program's cache: the specification's signature, not Glance's words.
        try Data((StoreTag.signature + "\n# made by a browser\n").utf8).write(
            to: URL(fileURLWithPath: root + "/other-cache/CACHEDIR.TAG"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/other-cache/page.html"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/notes/a.txt"))
        // A tag that is a link is not taken for one.
        try manager.createDirectory(atPath: root + "/linked", withIntermediateDirectories: true)
        try manager.createSymbolicLink(
            atPath: root + "/linked/CACHEDIR.TAG", withDestinationPath: root + "/kept/thumbs/CACHEDIR.TAG")
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/linked/b.txt"))
        let scan = try ContainerScanner(container: root).scanReporting()
        #expect(
            scan.documents.map(\.path) == [
                "linked/b.txt", "notes/a.txt", "other-cache/CACHEDIR.TAG", "other-cache/page.html",
            ])
        #expect(scan.skipped.stores == 1)
    }

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
