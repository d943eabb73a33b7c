import Foundation
import GlanceAccounts
import GlanceContainer
import GlanceCore
import GlanceOperations
import GlancePipeline
import GlanceStore
import GlanceTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GlanceServer

#if canImport(Glibc)
    import Glibc
#endif

/// A container with a server over it: a real sidecar and real worker processes, the HTTP side
/// tested in-process.
final class ServedContainer: Sendable {
    let root: String
    let outside: String
    let pool: RendererPool
    let server: PreviewServer

    init(workerArguments: [String] = [], renderTimeout: Duration = .seconds(30), walkReuse: Duration = .seconds(2))
        throws
    {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)").path
        outside = root + "-outside"
        let files = [
            "a.png": "png/rgb8.png", "notes.txt": "text/latin-utf8.txt", "sub/letter.pdf": "pdf/letter.pdf",
            "broken.jpg": "corrupt/truncated-header.jpg",
        ]
        for (name, asset) in files {
            let target = root + "/" + name
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: TestLocations.asset(asset), toPath: target)
        }
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("secret\n".utf8).write(to: URL(fileURLWithPath: outside + "/secret.txt"))
        _ = symlink("../" + (outside as NSString).lastPathComponent + "/secret.txt", root + "/escape.txt")
        let scanner = try ContainerScanner(container: root, excluding: [root + "/.thumbnails"])
        let store = try SidecarStore(directory: root + "/.thumbnails")
        var configuration = RendererPool.Configuration(
            executable: TestLocations.worker, arguments: workerArguments, renderers: 2, timeoutSeconds: 30)
        // The office lane starts with the first office document only.
        configuration.office = OfficeLane.installed()
        pool = RendererPool(configuration: configuration)
        let indexer = Indexer(scanner: scanner, store: store, pool: pool, options: .init(generatorVersion: "test"))
        server = PreviewServer(indexer: indexer, renderTimeout: renderTimeout, walkReuse: walkReuse)
    }

    deinit {
        // Not stopBlocking()/shutdownBlocking(): a deinit at the end of an async test runs on one of
        // the cooperative pool's threads, which must not wait. The task kills or drains the
        // renderers and awaits their threads without holding one.
        Task { [pool] in await pool.stop() }
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: outside)
    }

    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let application = Application(router: server.router())
        try await application.test(.router) { client in try await body(client) }
    }
}

@Suite("Preview server", .timeLimit(.minutes(10)))
struct PreviewServerTests {
    @Test("the listing API: every document, filters, paging, and one document's attributes")
    func api() async throws {
        let served = try ServedContainer()
        try await served.test { client in
            try await client.execute(uri: "/api/items", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("X-Total-Count")!] == "4")
                let rows = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(rows?.map { $0["path"] as? String } == ["a.png", "broken.jpg", "notes.txt", "sub/letter.pdf"])
            }
            try await client.execute(uri: "/api/items?type=pdf", method: .get) { response in
                let rows = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(rows?.count == 1)
            }
            try await client.execute(uri: "/api/items?limit=2&offset=1&sort=name", method: .get) { response in
                let rows = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(rows?.map { $0["path"] as? String } == ["broken.jpg", "notes.txt"])
            }
            try await client.execute(uri: "/api/items?type=no-such-type", method: .get) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/items/sub/letter.pdf", method: .get) { response in
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(object?["kind"] as? String == "pdf" && object?["state"] as? String == "missing")
            }
            try await client.execute(uri: "/api/items/nope.pdf", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test(
        "thumbnails: made on demand, a strong ETag, 304, HEAD, immutable when versioned; a failure is a 404 with its reason"
    )
    func thumbnails() async throws {
        let served = try ServedContainer()
        try await served.test { client in
            let tag = try await client.execute(uri: "/thumbnails/a.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(Array(Data(buffer: response.body).prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
                return response.headers[.eTag] ?? ""
            }
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("-test\""))
            try await client.execute(uri: "/thumbnails/a.png", method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            // If-None-Match compares weakly: the weak form of the tag is the same tag.
            try await client.execute(uri: "/thumbnails/a.png", method: .get, headers: [.ifNoneMatch: "W/" + tag]) {
                #expect($0.status == .notModified)
            }
            try await client.execute(uri: "/thumbnails/a.png", method: .head) { response in
                #expect(response.status == .ok)
                #expect(Int(response.headers[.contentLength] ?? "") ?? 0 > 0)
                #expect(response.body.readableBytes == 0)
            }
            let version = String(tag.dropFirst().prefix(64))
            try await client.execute(uri: "/thumbnails/a.png?v=\(version)", method: .get) { response in
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
            try await client.execute(uri: "/thumbnails/broken.jpg", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).hasPrefix("no thumbnail: "))
            }
        }
    }

    @Test(
        "?size= serves the store's smaller sizes in their formats (a photo's WebP, a text page's gray PNG), each with its own tag, the 1024 to a client without WebP; a size the store does not keep is a 400"
    )
    func smallerSizes() async throws {
        let served = try ServedContainer()
        // A photograph, drawn when first asked for: its sizes are lossy WebP.
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("png/photo-like.png"), toPath: served.root + "/sub/photo.png")
        try await served.test { client in
            var tags: Set<String> = []
            for (query, type) in [("", "image/png"), ("?size=256", "image/webp"), ("?size=512", "image/webp")] {
                try await client.execute(
                    uri: "/thumbnails/sub/photo.png" + query, method: .get, headers: [.accept: "image/webp,*/*"]
                ) { response in
                    #expect(response.status == .ok, "\(query)")
                    #expect(response.headers[.contentType] == type && response.headers[.vary] == "Accept")
                    let bytes = Array(Data(buffer: response.body))
                    if type == "image/webp" {
                        #expect(bytes.prefix(4) == Array("RIFF".utf8)[...] && bytes[8..<12] == Array("WEBP".utf8)[...])
                    }
                    tags.insert(response.headers[.eTag] ?? "")
                }
            }
            #expect(tags.count == 3)
            // The text's sizes are PNGs in sixteen grays (4 bits a sample, gray).
            for side in [256, 512] {
                try await client.execute(
                    uri: "/thumbnails/notes.txt?size=\(side)", method: .get, headers: [.accept: "image/webp,*/*"]
                ) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == "image/png", "\(side)")
                    let bytes = Array(Data(buffer: response.body))
                    #expect(bytes.count > 25 && Array(bytes[24...25]) == [4, 0], "\(side)")
                }
            }
            // The sizes' boxes, as the listing has them.
            try await client.execute(uri: "/api/items/sub/photo.png", method: .get) { response in
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                let thumbnails = object?["thumbnails"] as? [String: [String: Any]] ?? [:]
                for side in [256, 512] {
                    let image = thumbnails["\(side)x\(side)"] ?? [:]
                    #expect(image["format"] as? String == "webp")
                    #expect(max(image["width"] as? Int ?? 0, image["height"] as? Int ?? 0) == side)
                }
            }
            // A client that takes no WebP gets the 1024 as PNG.
            try await client.execute(
                uri: "/thumbnails/sub/photo.png?size=256", method: .get, headers: [.accept: "image/png,image/jpeg"]
            ) { response in
                #expect(response.headers[.contentType] == "image/png")
                let bytes = Array(Data(buffer: response.body))
                // The PNG's IHDR: width and height, big-endian, at bytes 16 and 20.
                let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
                #expect(width == 1024)
            }
            for query in ["?size=300", "?size=big", "?size=0"] {
                try await client.execute(uri: "/thumbnails/sub/letter.pdf" + query, method: .get) {
                    #expect($0.status == .badRequest, "\(query)")
                }
            }
            // a.png's 1024 is 200x150, which fits both boxes: each size answers with its bytes
            // (stored once), under a tag of its own, and the listing says whose image it is.
            let standard = try await client.execute(uri: "/thumbnails/a.png", method: .get) { response in
                (Array(Data(buffer: response.body)), response.headers[.eTag])
            }
            for side in [256, 512] {
                try await client.execute(
                    uri: "/thumbnails/a.png?size=\(side)", method: .get, headers: [.accept: "image/webp,*/*"]
                ) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == "image/png", "\(side)")
                    #expect(Array(Data(buffer: response.body)) == standard.0, "\(side)")
                    #expect(response.headers[.eTag] != standard.1, "\(side)")
                }
            }
            try await client.execute(uri: "/api/items/a.png", method: .get) { response in
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                let thumbnails = object?["thumbnails"] as? [String: [String: Any]] ?? [:]
                #expect(thumbnails["256x256"]?["sameAs"] as? String == "1024x1024")
                #expect(thumbnails["512x512"]?["width"] as? Int == 200)
            }
        }
        let stored = try #require(
            try await served.server.indexer.store.document(at: "a.png", includingImageData: false))
        #expect(stored.thumbnails.map(\.sizeKey) == ["1024x1024"])
    }

    @Test("pages share one walk of the container until a document changes; the next page after a change walks again")
    func walksShared() async throws {
        // Reused for longer than a busy machine could take here: only a change ends a walk.
        let served = try ServedContainer(walkReuse: .seconds(600))
        let walks: @Sendable () -> Int = { served.server.indexer.scanner.directory.walks }
        try await served.test { client in
            let before = walks()
            for uri in ["/api/items", "/", "/api/items?limit=2&offset=1", "/api/items?reverse=1", "/"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .ok, "\(uri)") }
            }
            #expect(walks() == before + 1)
            // A page by name is a slice of the walk, in either direction.
            let names = { (query: String) async throws -> [String] in
                try await client.execute(uri: "/api/items" + query, method: .get) { response in
                    let rows = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                    return rows?.compactMap { $0["path"] as? String } ?? []
                }
            }
            let all = try await names("")
            #expect(all == all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } && all.count == 4)
            #expect(try await names("?limit=2&offset=1") == Array(all[1..<3]))
            #expect(try await names("?reverse=1&limit=3") == Array(all.reversed().prefix(3)))
            #expect(try await names("?reverse=1&offset=3") == [all[0]])
            // A file added meanwhile is not seen until something changes: a render is a change.
            try Data("new\n".utf8).write(to: URL(fileURLWithPath: served.root + "/new.txt"))
            #expect(try await names("").count == 4)
            try await client.execute(uri: "/thumbnails/notes.txt", method: .get) { #expect($0.status == .ok) }
            #expect(try await names("").contains("new.txt"))
            #expect(walks() == before + 2)
        }
    }

    @Test("a render that outlasts the time limit is a 503 with Retry-After, never a 500")
    func renderTimeout() async throws {
        let served = try ServedContainer(
            workerArguments: ["--debug-slow-on", "a.png"], renderTimeout: .milliseconds(200))
        try await served.test { client in
            try await client.execute(uri: "/thumbnails/a.png", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "5")
            }
        }
    }

    @Test("documents: the original, with Range (206) and an unsatisfiable range (416)")
    func documents() async throws {
        let served = try ServedContainer()
        let original = try Data(contentsOf: URL(fileURLWithPath: served.root + "/notes.txt"))
        try await served.test { client in
            try await client.execute(uri: "/documents/notes.txt", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain")
                #expect(Data(buffer: response.body) == original)
            }
            try await client.execute(uri: "/documents/notes.txt", method: .get, headers: [.range: "bytes=5-14"]) {
                response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 5-14/\(original.count)")
                #expect(Data(buffer: response.body) == original[5...14])
            }
            try await client.execute(uri: "/documents/notes.txt", method: .get, headers: [.range: "bytes=-4"]) {
                response in
                #expect(Data(buffer: response.body) == original.suffix(4))
            }
            // A malformed range is ignored (the whole file), never a 416.
            for malformed in ["bytes=-abc", "bytes=--5", "bytes=+5-", "bytes=abc-"] {
                try await client.execute(uri: "/documents/notes.txt", method: .get, headers: [.range: malformed]) {
                    #expect($0.status == .ok, "\(malformed)")
                    #expect($0.body.readableBytes == original.count, "\(malformed)")
                }
            }
            try await client.execute(uri: "/documents/notes.txt", method: .get, headers: [.range: "bytes=99999-"]) {
                response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */\(original.count)")
            }
        }
    }

    @Test(
        "previews: page N drawn to the size asked, a strong tag, immutable when versioned; no such page, text and bad values refused"
    )
    func previews() async throws {
        let served = try ServedContainer()
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("pdf/a4-two-pages.pdf"), toPath: served.root + "/two.pdf")
        try await served.test { client in
            // Page 2 of the test file is A4 turned: wider than tall, 600 wide.
            let tag = try await client.execute(uri: "/previews/two.pdf?page=2&size=600", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.cacheControl] == "no-cache")
                // 600 is drawn at the next multiple of 256 up.
                let size = pngSize(Data(buffer: response.body))
                #expect(size?.width == 768 && size?.height == 543, "\(String(describing: size))")
                return response.headers[.eTag] ?? ""
            }
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("-p2-768\""))
            let version = String(tag.dropFirst().dropLast())
            try await client.execute(uri: "/previews/two.pdf?page=2&size=700&v=\(version)", method: .get) { response in
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
            try await client.execute(
                uri: "/previews/two.pdf?page=2&size=600", method: .get, headers: [.ifNoneMatch: tag]
            ) {
                #expect($0.status == .notModified)
            }
            // The first page is another picture, upright.
            try await client.execute(uri: "/previews/two.pdf?size=256", method: .get) { response in
                let size = pngSize(Data(buffer: response.body))
                #expect(size?.width == 181 && size?.height == 256)
            }
            // A page the document does not have, before and after the record knows the count.
            try await client.execute(uri: "/previews/two.pdf?page=3", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body) == "no such page: the document has 2 pages\n")
            }
            _ = await served.server.indexer.render("two.pdf")
            try await client.execute(uri: "/previews/two.pdf?page=3", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body) == "no such page: the document has 2 pages\n")
            }
            try await client.execute(uri: "/previews/a.png?page=2", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/previews/notes.txt", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).hasPrefix("no preview: "))
            }
            for query in ["page=0", "page=x", "size=5000", "size=-1", "page=99999999999"] {
                try await client.execute(uri: "/previews/two.pdf?\(query)", method: .get) {
                    #expect($0.status == .badRequest, "\(query)")
                }
            }
            try await client.execute(uri: "/previews/broken.jpg", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).hasPrefix("no preview: "))
            }
        }
    }

    @Test(
        "previews: ten requests for one page share one render; a cached page asks no renderer; a changed document is drawn again"
    )
    func previewRenders() async throws {
        let served = try ServedContainer()
        let path = served.root + "/two.pdf"
        try FileManager.default.copyItem(atPath: TestLocations.asset("pdf/a4-two-pages.pdf"), toPath: path)
        let indexer = served.server.indexer
        try await served.test { client in
            let before = indexer.rendersStarted
            let tags = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try await client.execute(uri: "/previews/two.pdf?page=2&size=1024", method: .get) { response in
                            response.status == .ok ? response.headers[.eTag] : nil
                        }
                    }
                }
                var tags: [String?] = []
                for try await tag in group { tags.append(tag) }
                return tags
            }
            #expect(Set(tags).count == 1 && tags.first! != nil, "\(tags)")
            #expect(indexer.rendersStarted == before + 1, "ten requests, \(indexer.rendersStarted - before) renders")
            _ = try await client.execute(uri: "/previews/two.pdf?page=2&size=1024", method: .get) { $0.status }
            #expect(indexer.rendersStarted == before + 1, "a cached page was drawn again")
            // The document changes: its pages are drawn anew, under another tag.
            var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            let tag = try await client.execute(uri: "/previews/two.pdf?page=2&size=1024", method: .get) {
                $0.headers[.eTag]
            }
            #expect(indexer.rendersStarted == before + 2)
            #expect(tag != nil && tag != tags.first!)
        }
    }

    @Test("thumbnails of café.png and café.png written e + U+0301 are each their own, also from the memory cache")
    func canonicallyEqualNamesServed() async throws {
        let served = try ServedContainer()
        let composed = "caf\u{E9}.png"
        let decomposed = "cafe\u{301}.png"
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("png/rgb8.png"), toPath: served.root + "/" + composed)
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("png/gray8.png"), toPath: served.root + "/" + decomposed)
        try await served.test { client in
            var bodies: [String: [Data]] = [:]
            for round in 0..<2 {
                for name in [composed, decomposed] {
                    let body = try await client.execute(uri: "/thumbnails/" + percentEncodedName(name), method: .get) {
                        #expect($0.status == .ok, "round \(round)")
                        return Data(buffer: $0.body)
                    }
                    bodies[percentEncodedName(name), default: []].append(body)
                }
            }
            let first = try #require(bodies[percentEncodedName(composed)])
            let second = try #require(bodies[percentEncodedName(decomposed)])
            #expect(first[0] == first[1] && second[0] == second[1])
            #expect(first[0] != second[0], "one file's thumbnail was served for the other")
        }
    }

    @Test(
        "previews: a document that failed is not drawn again for another size or a second ask, until it changes"
    )
    func failedPreviewsRemembered() async throws {
        let served = try ServedContainer()
        let path = served.root + "/broken.jpg"
        let indexer = served.server.indexer
        try await served.test { client in
            let before = indexer.rendersStarted
            for size in [256, 512, 768, 1024, 2048, 4096, 256] {
                try await client.execute(uri: "/previews/broken.jpg?size=\(size)", method: .get) { response in
                    #expect(response.status == .notFound)
                    #expect(String(buffer: response.body).hasPrefix("no preview: "), "size \(size)")
                }
            }
            #expect(indexer.rendersStarted == before + 1, "\(indexer.rendersStarted - before) renders of one failure")
            // Changed, it is a new file: drawn (and failing) once more.
            var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            _ = try await client.execute(uri: "/previews/broken.jpg?size=512", method: .get) { $0.status }
            #expect(indexer.rendersStarted == before + 2)
            // Once its thumbnail failed and was recorded, no preview of it asks a renderer.
            try await client.execute(uri: "/thumbnails/broken.jpg", method: .get) { #expect($0.status == .notFound) }
            let recorded = indexer.rendersStarted
            _ = try await client.execute(uri: "/previews/broken.jpg?page=2&size=512", method: .get) { $0.status }
            #expect(indexer.rendersStarted == recorded)
        }
    }

    @Test(
        "text: decoded by the renderer to the characters iconv gives, as UTF-8, the encoding and lines said",
        arguments: [
            "big5", "euc-jp", "gb18030", "koi8-r", "shift_jis", "utf16be-bom", "utf16le-bom", "utf32le-bom",
            "utf8-bom", "windows-1252",
        ])
    func text(name: String) async throws {
        let served = try ServedContainer()
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("text/\(name).txt"), toPath: served.root + "/\(name).txt")
        let expected = try Data(
            contentsOf: URL(fileURLWithPath: TestLocations.asset("text/expected-decoding/\(name).utf8")))
        try await served.test { client in
            try await client.execute(uri: "/text/\(name).txt", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(Data(buffer: response.body) == expected, "\(name)")
                let lines = String(decoding: expected, as: UTF8.self).split(
                    separator: "\n", omittingEmptySubsequences: false)
                let count = lines.last?.isEmpty == true ? lines.count - 1 : lines.count
                #expect(response.headers[PreviewServer.textLinesHeader] == String(count))
                #expect(response.headers[PreviewServer.textEncodingHeader]?.isEmpty == false)
                #expect(response.headers[PreviewServer.textTruncatedHeader] == nil)
            }
        }
    }

    @Test("text: the first 20,000 lines, or the first MiB, and the headers say it was cut; not text is a 404")
    func textCap() async throws {
        let served = try ServedContainer()
        let manyLines = (1...25_000).map { "line \($0)\n" }.joined()
        try Data(manyLines.utf8).write(to: URL(fileURLWithPath: served.root + "/lines.txt"))
        // 1.5 MiB on one line: cut at 1 MiB.
        try Data(repeating: 0x61, count: 3 << 19).write(to: URL(fileURLWithPath: served.root + "/wide.txt"))
        try await served.test { client in
            try await client.execute(uri: "/text/lines.txt", method: .get) { response in
                let body = String(buffer: response.body)
                #expect(body.hasSuffix("line 20000\n") && !body.contains("line 20001"))
                #expect(response.headers[PreviewServer.textLinesHeader] == "20000")
                #expect(response.headers[PreviewServer.textTruncatedHeader] != nil)
            }
            try await client.execute(uri: "/text/wide.txt", method: .get) { response in
                #expect(response.body.readableBytes == 1 << 20)
                #expect(response.headers[PreviewServer.textLinesHeader] == "1")
                #expect(response.headers[PreviewServer.textTruncatedHeader] != nil)
            }
            try await client.execute(uri: "/text/a.png", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body) == "no preview: not a text document\n")
            }
            try await client.execute(uri: "/text/escape.txt", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/text/../notes.txt", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test("documents: a text's original carries the charset its render detected; UTF-32, which browsers lack, none")
    func documentCharset() async throws {
        let served = try ServedContainer()
        for name in ["shift_jis", "utf32le-bom"] {
            try FileManager.default.copyItem(
                atPath: TestLocations.asset("text/\(name).txt"), toPath: served.root + "/\(name).txt")
            _ = await served.server.indexer.render("\(name).txt")
        }
        try await served.test { client in
            try await client.execute(uri: "/documents/shift_jis.txt", method: .get) { response in
                #expect(response.headers[.contentType] == "text/plain; charset=shift_jis")
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
            }
            try await client.execute(uri: "/documents/utf32le-bom.txt", method: .get) { response in
                #expect(response.headers[.contentType] == "text/plain")
            }
        }
    }

    @Test(
        "the preview page: a PDF's, a multi-page TIFF's, a font's and a DCX's every page stacked with its box, a text's content escaped, an image's larger size"
    )
    func previewPageContent() async throws {
        let served = try ServedContainer()
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("pdf/a4-two-pages.pdf"), toPath: served.root + "/two.pdf")
        try Data("<script>alert(1)</script> & more\nline two\n".utf8).write(
            to: URL(fileURLWithPath: served.root + "/markup.txt"))
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("tiff/multipage.tiff"), toPath: served.root + "/pages.tiff")
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("fonts/bitmap.pcf.gz"), toPath: served.root + "/fixed.pcf.gz")
        try FileManager.default.copyItem(
            atPath: TestLocations.asset("rasters/pages.dcx"), toPath: served.root + "/fax.dcx")
        for path in ["two.pdf", "markup.txt", "a.png", "pages.tiff", "fixed.pcf.gz", "fax.dcx"] {
            _ = await served.server.indexer.render(path)
        }
        try await served.test { client in
            let pdf = try await client.execute(uri: "/preview/two.pdf", method: .get) { String(buffer: $0.body) }
            #expect(pdf.contains("Page <span id=\"page-number\">1</span> of 2"))
            // Page 1 upright, page 2 turned: each image laid out in its own page's aspect.
            #expect(pdf.contains("id=\"preview-image\" data-page=\"1\""))
            #expect(pdf.contains("data-page=\"1\"") && pdf.contains("width=\"724\" height=\"1024\""))
            #expect(pdf.contains("id=\"page-2\" data-page=\"2\"") && pdf.contains("width=\"1024\" height=\"724\""))
            #expect(pdf.contains("/previews/two.pdf?page=2&amp;size=2048&amp;v="))
            // A multi-page TIFF is stacked as a PDF is: 300x200, 500x500 and 400x300 pages.
            let tiff = try await client.execute(uri: "/preview/pages.tiff", method: .get) { String(buffer: $0.body) }
            #expect(tiff.contains("Page <span id=\"page-number\">1</span> of 3"))
            #expect(
                tiff.contains("id=\"preview-image\" data-page=\"1\"") && tiff.contains("width=\"1024\" height=\"683\""))
            #expect(tiff.contains("id=\"page-2\" data-page=\"2\"") && tiff.contains("width=\"1024\" height=\"1024\""))
            #expect(tiff.contains("id=\"page-3\" data-page=\"3\"") && tiff.contains("width=\"1024\" height=\"768\""))
            #expect(tiff.contains("/previews/pages.tiff?page=3&amp;size=2048&amp;v="))
            // A font's sheet, waterfall and glyph coverage are its pages (they were one picture,
            // the sheet); a DCX's pages too.
            let font = try await client.execute(uri: "/preview/fixed.pcf.gz", method: .get) { String(buffer: $0.body) }
            #expect(font.contains("Page <span id=\"page-number\">1</span> of 3"))
            #expect(font.contains("id=\"page-3\" data-page=\"3\"") && font.contains("width=\"768\" height=\"1024\""))
            let fax = try await client.execute(uri: "/preview/fax.dcx", method: .get) { String(buffer: $0.body) }
            #expect(fax.contains("Page <span id=\"page-number\">1</span> of 2"))
            #expect(fax.contains("/previews/fax.dcx?page=2&amp;size=2048&amp;v="))
            let text = try await client.execute(uri: "/preview/markup.txt", method: .get) { String(buffer: $0.body) }
            #expect(text.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"))
            #expect(!text.contains("<script>alert"))
            #expect(text.contains("UTF-8 · 2 lines"))
            let image = try await client.execute(uri: "/preview/a.png", method: .get) { String(buffer: $0.body) }
            #expect(image.contains("data-original=\"/documents/a.png\""))
            #expect(image.contains("/previews/a.png?page=1&amp;size=2048&amp;v="))
        }
    }

    @Test(
        "the preview page of a video: the original in a player with the thumbnail as poster, a strip of frames the renderer draws; HEVC, which browsers do not play, gets the strip only; a song (an MP3, a WAV) its cover and a player"
    )
    func mediaPreview() async throws {
        let served = try ServedContainer()
        for (name, asset) in [
            ("clip.mp4", "media/fade-in.mp4"), ("hevc.mp4", "media/hevc.mp4"), ("song.mp3", "media/cover.mp3"),
            ("take.wav", "media/cover.wav"),
        ] {
            try FileManager.default.copyItem(atPath: TestLocations.asset(asset), toPath: served.root + "/" + name)
            _ = await served.server.indexer.render(name)
        }
        try await served.test { client in
            let clip = try await client.execute(uri: "/preview/clip.mp4", method: .get) { String(buffer: $0.body) }
            #expect(clip.contains("<video id=\"player\" controls preload=\"metadata\" poster=\"/thumbnails/clip.mp4"))
            #expect(clip.contains("<source src=\"/documents/clip.mp4\" type=\"video/mp4\">"))
            #expect(clip.contains("id=\"frame-strip\""))
            #expect(clip.components(separatedBy: "class=\"frame\"").count - 1 == MediaDetails.stripLength)
            #expect(clip.contains("/previews/clip.mp4?page=8&amp;size=512&amp;v="))
            #expect(clip.contains("<dt>Duration</dt><dd>0:04</dd>"))
            #expect(!clip.contains("data-original"), "a click does not open a video as an image")
            // A frame of the strip, drawn by the renderer; the strip has eight.
            let (status, type) = try await client.execute(uri: "/previews/clip.mp4?page=5&size=512", method: .get) {
                ($0.status, $0.headers[.contentType])
            }
            #expect(
                status == .ok && (type == "image/jpeg" || type == "image/webp" || type == "image/png"), "\(type ?? "")")
            let beyond = try await client.execute(uri: "/previews/clip.mp4?page=9&size=512", method: .get) { $0.status }
            #expect(beyond == .notFound)
            let hevc = try await client.execute(uri: "/preview/hevc.mp4", method: .get) { String(buffer: $0.body) }
            #expect(
                !hevc.contains("<video") && hevc.contains("id=\"preview-image\"") && hevc.contains("id=\"frame-strip\"")
            )
            let song = try await client.execute(uri: "/preview/song.mp3", method: .get) { String(buffer: $0.body) }
            #expect(song.contains("<audio id=\"player\" controls preload=\"metadata\" src=\"/documents/song.mp3\">"))
            #expect(song.contains("id=\"preview-image\"") && !song.contains("frame-strip"))
            // A WAV's PCM plays in browsers too.
            let take = try await client.execute(uri: "/preview/take.wav", method: .get) { String(buffer: $0.body) }
            #expect(take.contains("<audio id=\"player\" controls preload=\"metadata\" src=\"/documents/take.wav\">"))
        }
    }

    @Test(
        "an office document's preview stacks its pages as a PDF's: a workbook's sheets, each captioned with its name, drawn on request"
    )
    func officePreview() async throws {
        let served = try ServedContainer()
        for (name, asset) in [("budget.xlsx", "office/budget.xlsx"), ("letter.docx", "office/letter.docx")] {
            try FileManager.default.copyItem(atPath: TestLocations.asset(asset), toPath: served.root + "/" + name)
            _ = await served.server.indexer.render(name)
        }
        try await served.test { client in
            let sheet = try await client.execute(uri: "/preview/budget.xlsx", method: .get) { String(buffer: $0.body) }
            #expect(sheet.components(separatedBy: "class=\"page\"").count - 1 == 3, "three sheets, three pages")
            #expect(sheet.contains("<p class=\"page-caption\">Q2 figures</p>"))
            #expect(sheet.contains("/previews/budget.xlsx?page=3"))
            let (status, type) = try await client.execute(uri: "/previews/budget.xlsx?page=2&size=1024", method: .get) {
                ($0.status, $0.headers[.contentType])
            }
            #expect(status == .ok && type == "image/png", "\(status) \(type ?? "")")
            let beyond = try await client.execute(uri: "/previews/budget.xlsx?page=4", method: .get) { $0.status }
            #expect(beyond == .notFound)
            let letter = try await client.execute(uri: "/preview/letter.docx", method: .get) { String(buffer: $0.body) }
            #expect(letter.components(separatedBy: "class=\"page\"").count - 1 == 2 && !letter.contains("page-caption"))
        }
    }

    @Test("a 10,000-page PDF's preview holds its first 20 pages; the rest are runs of boxes and URL templates")
    func longPDFStack() throws {
        var details = DocumentDetails(pageCount: 10_000)
        for number in 1...10_000 {
            // Portrait A4 but for pages 30 to 39, which are landscape.
            let landscape = (30...39).contains(number)
            details.appendPage(width: landscape ? 842 : 595, height: landscape ? 595 : 842)
        }
        let links = PageLinks(prefix: "/glance")
        let version = { (page: String, side: Int) in "abc-p\(page)-\(side)" }
        let stack = PreviewPage.stack(of: "docs/a b.pdf", details: details, links: links, version: version)
        #expect(stack.count == 10_000)
        #expect(stack.pages.map(\.number) == Array(1...PreviewPage.inlinePageCount))
        #expect(stack.pages.first?.id == "preview-image" && stack.pages.last?.id == "page-20")
        #expect(stack.pages.filter(\.eager).map(\.number) == [1, 2])
        #expect(stack.pages.allSatisfy { $0.width == 724 && $0.height == 1024 })
        let more = try #require(stack.more)
        #expect(more.first == 21 && more.batch == PreviewPage.pagesPerBatch)
        // Pages 21-29 portrait, 30-39 landscape, 40-10,000 portrait.
        #expect(more.boxes == "724,1024,9;1024,724,10;724,1024,9961")
        // The templates, filled, are the URLs the server would have written for that page.
        for number in [21, 500, 10_000] {
            let filled = more.source.replacingOccurrences(of: PreviewPage.pageNumberPlaceholder, with: "\(number)")
            #expect(filled == links.pageImage("docs/a b.pdf", page: number, side: 1024, version: "abc-p\(number)-1024"))
            let large = more.large.replacingOccurrences(of: PreviewPage.pageNumberPlaceholder, with: "\(number)")
            #expect(large == links.pageImage("docs/a b.pdf", page: number, side: 2048, version: "abc-p\(number)-2048"))
        }
        // A name with braces cannot be mistaken for the placeholder: the path is escaped.
        let braces = PreviewPage.stack(of: "{page}.pdf", details: details, links: links, version: version)
        #expect(braces.more?.source.components(separatedBy: PreviewPage.pageNumberPlaceholder).count == 3)
        // A short PDF is all in the page.
        var short = DocumentDetails(pageCount: 3)
        for _ in 1...3 { short.appendPage(width: 595, height: 842) }
        let three = PreviewPage.stack(of: "s.pdf", details: short, links: links, version: version)
        #expect(three.pages.count == 3 && three.count == 3 && three.more == nil)
        // A page whose size is no size ends the stack there: the pages after it keep their numbers
        // only if they are not shown.
        var broken = DocumentDetails(pageCount: 6)
        for size in [(595.0, 842.0), (595, 842), (595, 842), (0, 0), (842, 595), (842, 595)] {
            broken.appendPage(width: size.0, height: size.1)
        }
        let cut = PreviewPage.stack(of: "b.pdf", details: broken, links: links, version: version)
        #expect(cut.count == 3 && cut.pages.map(\.number) == [1, 2, 3] && cut.more == nil)
    }

    @Test(
        "the preview and thumbnail cache keeps its bound: least recently used out first, nothing over a quarter of it")
    func cacheBound() {
        let cache = ThumbnailCache(capacityBytes: 1_000)
        let identity = FileIdentity(device: 1, inode: 2, size: 3, modifiedNanoseconds: 4)
        func entry(_ bytes: Int) -> ThumbnailCache.Entry {
            ThumbnailCache.Entry(
                identity: identity, entityTag: "\"t\"", version: nil, contentType: "image/png",
                body: ByteBuffer(repeating: 7, count: bytes), checkedAt: .now)
        }
        cache.insert(entry(251), for: "too large")
        #expect(cache.entry(for: "too large", identity: identity) == nil && cache.byteCount == 0)
        for index in 0..<5 { cache.insert(entry(200), for: "page \(index)") }
        #expect(cache.byteCount == 1_000)
        // Page 0 used again: the oldest now is page 1.
        #expect(cache.entry(for: "page 0", identity: identity) != nil)
        cache.insert(entry(200), for: "page 5")
        // Over the bound: the least recently used go until three quarters are left.
        #expect(cache.byteCount <= 750)
        #expect(cache.entry(for: "page 1", identity: identity) == nil)
        #expect(cache.entry(for: "page 0", identity: identity) != nil)
        #expect(cache.entry(for: "page 5", identity: identity) != nil)
        // Another file at the same path is not served from the cache.
        var changed = identity
        changed.size += 1
        #expect(cache.entry(for: "page 5", identity: changed) == nil)
    }

    @Test("an entry due for its check against the store is checked by one lookup; the others meanwhile are answered")
    func cacheCheckedOnce() {
        let cache = ThumbnailCache(capacityBytes: 1_000, revalidateAfter: .seconds(10))
        let identity = FileIdentity(device: 1, inode: 2, size: 3, modifiedNanoseconds: 4)
        cache.insert(
            ThumbnailCache.Entry(
                identity: identity, entityTag: "\"t\"", version: nil, contentType: "image/png",
                body: ByteBuffer(repeating: 7, count: 10), checkedAt: .now - .seconds(11)),
            for: "a.png")
        #expect(cache.entry(for: "a.png", identity: identity)?.needsCheck == true)
        // While that lookup's caller reads the store, the next ones are answered from the entry.
        for _ in 0..<3 { #expect(cache.entry(for: "a.png", identity: identity)?.needsCheck == false) }
        // A fresh entry is not checked.
        cache.insert(
            ThumbnailCache.Entry(
                identity: identity, entityTag: "\"t\"", version: nil, contentType: "image/png",
                body: ByteBuffer(repeating: 7, count: 10), checkedAt: .now),
            for: "b.png")
        #expect(cache.entry(for: "b.png", identity: identity)?.needsCheck == false)
    }

    @Test("every escape is a 404; every method but GET and HEAD is a 405")
    func safety() async throws {
        let served = try ServedContainer()
        // A `.` or a `/` followed by a combining mark is one character to Swift, but the kernel
        // sees the `.` of a hidden name and the `/` of a folder.
        try Data("hidden\n".utf8).write(to: URL(fileURLWithPath: served.root + "/.\u{301}hidden.txt"))
        try Data("in sub\n".utf8).write(to: URL(fileURLWithPath: served.root + "/sub/\u{301}x.txt"))
        try await served.test { client in
            for uri in [
                "/documents/.%CC%81hidden.txt", "/thumbnails/.%CC%81hidden.txt", "/api/items/.%CC%81hidden.txt",
                "/preview/.%CC%81hidden.txt", "/documents/sub%2F%CC%81x.txt",
                "/documents/../notes.txt", "/documents/%2e%2e/%2e%2e/etc/passwd",
                "/documents/sub%2f..%2f..%2fetc%2fpasswd",
                "/documents//etc/passwd", "/documents/escape.txt", "/documents/.thumbnails/thumbnails.sqlite",
                "/documents/notes.txt%00.png", "/thumbnails/escape.txt", "/api/items/escape.txt", "/documents/",
                // Empty components, around documents that exist: no second URL for a document.
                "/documents/sub//letter.pdf", "/documents//notes.txt", "/thumbnails/sub//letter.pdf",
                "/preview//notes.txt", "//documents/notes.txt",
                "/previews/escape.txt", "/previews/../notes.txt", "/previews/.%CC%81hidden.txt",
                "/previews/sub//letter.pdf", "/previews/.thumbnails/thumbnails.sqlite",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(!String(buffer: response.body).contains("secret"))
                }
            }
            for method in [HTTPRequest.Method.post, .put, .delete] {
                try await client.execute(uri: "/documents/notes.txt", method: method) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                    #expect(String(buffer: response.body) == "only GET and HEAD are answered here\n")
                }
            }
            // A path no route takes: a 404 in words like every other error, not an empty body.
            try await client.execute(uri: "/nope", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(!String(buffer: response.body).isEmpty)
            }
        }
    }

    @Test("every answer carries nosniff, no framing and a same-origin referrer; what is not a page runs nothing")
    func securityHeaders() async throws {
        let served = try ServedContainer()
        try await served.test { client in
            for uri in [
                "/", "/api/items", "/thumbnails/a.png", "/documents/a.png", "/documents/sub/letter.pdf",
                "/documents/never.txt", "/assets/nothing.css", "/preview/a.png",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(uri)")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(uri)")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin", "\(uri)")
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(policy.contains("frame-ancestors 'none'"), "\(uri): \(policy)")
                    let isPage = response.headers[.contentType]?.hasPrefix("text/html") == true
                    #expect(isPage != policy.contains("sandbox"), "\(uri): \(policy)")
                }
            }
            // Originals: images and text are shown, a PDF is saved, never run by the browser's viewer.
            try await client.execute(uri: "/documents/a.png", method: .get) { response in
                #expect(response.headers[.contentDisposition] == "inline; filename=\"a.png\"; filename*=UTF-8''a.png")
            }
            try await client.execute(uri: "/documents/sub/letter.pdf", method: .head) { response in
                #expect(response.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"letter.pdf\"") == true)
            }
        }
        #expect(
            PreviewServer.disposition(of: "r\u{e9}sum\u{e9} 1.txt", type: .text)
                == "inline; filename=\"r_sum_ 1.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9%201.txt")
        #expect(
            PreviewServer.disposition(of: FileName.decode(Array("x".utf8) + [0xFF]), type: nil)
                == "attachment; filename=\"x_\"; filename*=UTF-8''x%FF")
        // What browsers draw is shown (an SVG under the inert policy every original gets); what
        // they cannot draw is saved.
        for (type, shown) in [(ContentType.svg, true), (.gif, true), (.avif, true), (.heic, false), (.tiff, false)] {
            #expect(
                PreviewServer.disposition(of: "d", type: type).hasPrefix(shown ? "inline" : "attachment"), "\(type)")
        }
    }

    @Test("one account may start at most 60 sessions in ten minutes; others are not held back by it")
    func sessionQuota() {
        let time = ManualTime()
        let throttle = SignInThrottle(time: time.source)
        let admitted = (0..<70).filter { _ in throttle.mayStartSession(account: "alice") }.count
        #expect(admitted == SignInThrottle.sessionsPerWindow)
        #expect(throttle.mayStartSession(account: "bob"))
        // Ten minutes on, the quota is whole again.
        time.advance(by: SignInThrottle.window)
        #expect(throttle.mayStartSession(account: "alice"))
    }

    @Test("loopback is 127.0.0.0/8, ::1 and localhost; anything else reaches the network")
    func loopbackAddresses() {
        for host in ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST."] {
            #expect(HostCheck.isLoopback(host), "\(host)")
        }
        for host in ["0.0.0.0", "::", "10.0.0.1", "192.0.2.1", "::ffff:127.0.0.1", "docs.example", ""] {
            #expect(!HostCheck.isLoopback(host), "\(host)")
        }
    }
}

/// The width and height in a PNG's header, nil when the bytes are not a PNG.
func pngSize(_ data: Data) -> (width: Int, height: Int)? {
    let bytes = [UInt8](data.prefix(24))
    guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
    func number(_ offset: Int) -> Int { bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
    return (number(16), number(20))
}

/// `name` as a URL's path component: every byte past ASCII percent-encoded, as it is, so that two
/// spellings of one name (composed and decomposed) stay two URLs.
func percentEncodedName(_ name: String) -> String {
    name.utf8.map { $0 < 0x80 ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
}
