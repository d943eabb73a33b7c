import Foundation
import GlanceCore
import GlanceDesktopCache
import Testing

/// The freedesktop.org cache's names, chunks and files, without a renderer (the end-to-end tests
/// with GIO, the real client, are in GlanceCLITests).
@Suite("Desktop cache", .timeLimit(.minutes(10)))
struct DesktopCacheTests {
    @Test("URIs are escaped as GLib escapes them, names by the MD5 of the URI")
    func uris() {
        #expect(FileURI.of(absolutePath: "/home/jens/photos/me.png") == "file:///home/jens/photos/me.png")
        // The Thumbnail Managing Standard's own example.
        #expect(
            FreedesktopCache.entryName(for: "file:///home/jens/photos/me.png") == "c6ee772d9e49320e97ec29a7eb5b1697.png"
        )
        #expect(FileURI.of(absolutePath: "/a b/#1 50%;x.pdf") == "file:///a%20b/%231%2050%25%3Bx.pdf")
        #expect(FileURI.of(absolutePath: "/keep/!$&'()*+,=:@~-._") == "file:///keep/!$&'()*+,=:@~-._")
        #expect(FileURI.of(absolutePath: "/é?[]") == "file:///%C3%A9%3F%5B%5D")
        // A name that is not UTF-8 on disk keeps its byte.
        let latin1 = FileName.decode([0x2F, 0x63, 0x61, 0x66, 0xE9])
        #expect(FileURI.of(absolutePath: latin1) == "file:///caf%E9")
    }

    @Test("paths are made absolute and cleaned like GLib's, without resolving links")
    func canonicalPaths() {
        #expect(FileURI.canonicalPath("docs/./a.txt", relativeTo: "/home/u") == "/home/u/docs/a.txt")
        #expect(FileURI.canonicalPath("../x//y/", relativeTo: "/home/u") == "/home/x/y")
        #expect(FileURI.canonicalPath("/../..//z", relativeTo: "/ignored") == "/z")
        #expect(FileURI.canonicalPath(".", relativeTo: "/") == "/")
    }

    @Test("tEXt chunks go in after the header, come back out, and a bad CRC is caught")
    func chunks() throws {
        let texts = [("Thumb::URI", "file:///x%20y"), ("Thumb::MTime", "1700000000"), ("Software", "Glance 1")]
        let empty = PNGTextChunks.emptyImage(with: texts)
        let read = try #require(PNGTextChunks.read(empty))
        #expect(read == ["Thumb::URI": "file:///x%20y", "Thumb::MTime": "1700000000", "Software": "Glance 1"])
        // The header stays first; the texts come before the image data.
        #expect(String(decoding: empty[12..<16], as: UTF8.self) == "IHDR")
        let text = try #require(findChunk("tEXt", in: empty))
        let data = try #require(findChunk("IDAT", in: empty))
        #expect(text < data)
        var tampered = empty
        tampered[text + 10] ^= 0x01
        #expect(PNGTextChunks.read(tampered) == nil)
        #expect(PNGTextChunks.read(Array("not a png at all".utf8)) == nil)
        // Only the start of a file is read: image data that runs past it does not hide the texts.
        var big = Array(empty[0..<(data + 8)])
        big.replaceSubrange(data..<(data + 4), with: [0, 0x10, 0, 0])
        #expect(PNGTextChunks.read(big) == read)
        // Inserting into a PNG that has texts already adds to them.
        let more = try #require(PNGTextChunks.inserting([("Thumb::Size", "42")], into: empty))
        #expect(PNGTextChunks.read(more)?["Thumb::Size"] == "42")
        #expect(PNGTextChunks.read(more)?["Thumb::URI"] == "file:///x%20y")
        // Texts that are not Latin-1, and keywords too long, are refused rather than mangled.
        #expect(PNGTextChunks.inserting([("Thumb::URI", "ü→")], into: empty) == nil)
        #expect(PNGTextChunks.inserting([(String(repeating: "k", count: 80), "v")], into: empty) == nil)
    }

    @Test("entries: every size, tEXt of the document, folders 0700, files 0600, valid until it changes")
    func entries() throws {
        let root = try temporaryFolder() + "/cache/thumbnails"
        let cache = try FreedesktopCache(root: root, sizes: CacheSize.allCases, version: "9.9")
        let document = CacheDocument(
            uri: "file:///docs/a%20b.png", modifiedSeconds: 1_700_000_123, size: 4567, mimeType: "image/png",
            imageSize: PixelSize(width: 3000, height: 2000))
        try cache.write(CacheSize.allCases.map(blank), for: document)
        let status = cache.status(of: document)
        #expect(status.valid == [.xxLarge, .xLarge, .large, .normal])
        #expect(status.summary == "valid")
        #expect(status.path == cache.path(of: document, size: .xxLarge))
        for size in CacheSize.allCases {
            let path = cache.path(of: document, size: size)
            #expect(mode(of: path) == 0o600)
            #expect(mode(of: "\(root)/\(size.folderName)") == 0o700)
            let texts = try #require(PNGTextChunks.read(Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
            #expect(texts["Thumb::URI"] == document.uri)
            #expect(texts["Thumb::MTime"] == "1700000123")
            #expect(texts["Thumb::Size"] == "4567")
            #expect(texts["Thumb::Mimetype"] == "image/png")
            #expect(texts["Thumb::Image::Width"] == "3000")
            #expect(texts["Thumb::Image::Height"] == "2000")
            #expect(texts["Software"] == "Glance 9.9")
        }
        #expect(mode(of: root) == 0o700)
        // No temporary file is left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: "\(root)/xx-large")
        #expect(left == [FreedesktopCache.entryName(for: document.uri)])
        // The document changes: the entries are stale, as GIO will see them.
        var changed = document
        changed.modifiedSeconds += 1
        #expect(cache.status(of: changed).valid.isEmpty)
        #expect(cache.status(of: changed).stale.count == 4)
        #expect(cache.status(of: changed).summary == "stale")
        changed.size += 1
        changed.modifiedSeconds -= 1
        #expect(cache.status(of: changed).summary == "stale")
    }

    @Test("failure entries go to Glance's folder and GNOME's; a later thumbnail removes Glance's")
    func failures() throws {
        let root = try temporaryFolder() + "/thumbnails"
        let cache = try FreedesktopCache(root: root, sizes: [.large], version: "2.0")
        let document = CacheDocument(uri: "file:///broken.pdf", modifiedSeconds: 5, size: 10)
        #expect(cache.status(of: document).summary == "missing")
        try cache.writeFailure(for: document)
        #expect(cache.status(of: document).failed)
        #expect(cache.status(of: document).summary == "failed")
        let name = FreedesktopCache.entryName(for: document.uri)
        for folder in ["glance-2.0", "gnome-thumbnail-factory"] {
            let path = "\(root)/fail/\(folder)/\(name)"
            let texts = try #require(PNGTextChunks.read(Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
            #expect(texts["Thumb::URI"] == "file:///broken.pdf")
            #expect(texts["Thumb::MTime"] == "5")
            #expect(mode(of: path) == 0o600)
        }
        try cache.write([blank(.large)], for: document)
        #expect(!FileManager.default.fileExists(atPath: "\(root)/fail/glance-2.0/\(name)"))
        #expect(!FileManager.default.fileExists(atPath: "\(root)/fail/gnome-thumbnail-factory/\(name)"))
        #expect(cache.status(of: document).valid == [.large])
    }

    @Test("a symbolic link planted at an entry's name is replaced, never written through")
    func plantedLink() throws {
        let folder = try temporaryFolder()
        let root = folder + "/thumbnails"
        let cache = try FreedesktopCache(root: root, sizes: [.normal], version: "1")
        let document = CacheDocument(uri: "file:///x", modifiedSeconds: 1, size: 1)
        let victim = folder + "/victim"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let entry = cache.path(of: document, size: .normal)
        try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: victim)
        try cache.write([blank(.normal)], for: document)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(cache.status(of: document).valid == [.normal])
        // Read back, a link is not an entry.
        try FileManager.default.removeItem(atPath: entry)
        try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: victim)
        #expect(cache.status(of: document).valid.isEmpty)
    }

    @Test("the cache's place follows XDG_CACHE_HOME, else HOME; sizes are named as the standard names them")
    func placesAndSizes() throws {
        #expect(
            try FreedesktopCache.defaultRoot(environment: ["XDG_CACHE_HOME": "/c/", "HOME": "/h"]) == "/c/thumbnails")
        #expect(
            try FreedesktopCache.defaultRoot(environment: ["XDG_CACHE_HOME": "rel", "HOME": "/h"])
                == "/h/.cache/thumbnails")
        #expect(throws: DesktopCacheError.noCacheHome) { try FreedesktopCache.defaultRoot(environment: [:]) }
        #expect(try CacheSize.list("normal,xx-large,large") == [.xxLarge, .large, .normal])
        #expect(throws: DesktopCacheError.unknownSize("huge")) { try CacheSize.list("large,huge") }
        #expect(CacheSize.allCases.map(\.side).sorted() == [128, 256, 512, 1024])
    }

    // MARK: - Helpers

    /// A 1x1 PNG standing in for a rendition of `size`.
    private func blank(_ size: CacheSize) -> Rendition {
        Rendition(side: size.side, width: 1, height: 1, data: PNGTextChunks.emptyImage(with: []))
    }

    private func findChunk(_ type: String, in png: [UInt8]) -> Int? {
        var offset = 8
        while offset + 8 <= png.count {
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self) == type { return offset }
            offset += 12 + length
        }
        return nil
    }

    private func mode(of path: String) -> Int {
        var status = stat()
        guard lstat(path, &status) == 0 else { return -1 }
        return Int(status.st_mode & 0o7777)
    }

    private func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "glance-desktop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
