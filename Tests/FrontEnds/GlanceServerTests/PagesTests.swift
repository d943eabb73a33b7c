import Foundation
import GlanceAccounts
import GlanceCore
import GlanceOperations
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GlanceServer

/// The grid and preview pages, the site of several containers, the assets, and the thumbnail
/// cache, against a real sidecar and real workers.
@Suite("Preview pages", .timeLimit(.minutes(10)))
struct PagesTests {
    /// The `<li class="item ...">` blocks of a grid page, in order.
    static func items(_ html: String) -> [String] {
        html.components(separatedBy: "<li class=\"item ").dropFirst().map { $0.components(separatedBy: "</li>")[0] }
    }

    /// The `data-path` of each grid item.
    static func paths(_ html: String) -> [String] {
        items(html).compactMap { item in
            item.components(separatedBy: "data-path=\"").dropFirst().first?.components(separatedBy: "\"").first
        }
    }

    /// The `href` of the element with `id`, unescaped (`&amp;` to `&`), or nil.
    static func link(_ id: String, in html: String) -> String? {
        guard let mark = html.range(of: "id=\"\(id)\""),
            let open = html[..<mark.lowerBound].lastIndex(of: "<"),
            let close = html[mark.upperBound...].firstIndex(of: ">")
        else { return nil }
        let tag = html[open..<close]
        guard let href = tag.range(of: "href=\"") else { return nil }
        let value = tag[href.upperBound...].prefix { $0 != "\"" }
        return value.replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `bytes` decompressed by gzip(1), or nil when it reads them as no gzip.
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc"]
        let (input, output) = (Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? Array(data) : nil
    }

    @Test(
        "pages, JSON and the assets go gzipped to a client that takes it, from this site only; images and small answers as they are"
    )
    func compression() async throws {
        let served = try ServedContainer()
        try await served.test { client in
            try await client.execute(uri: "/thumbnails/a.png", method: .get) { #expect($0.status == .ok) }
            let plain = try await client.execute(uri: "/", method: .get) { Array(Data(buffer: $0.body)) }
            let gzip: HTTPFields = [.acceptEncoding: "gzip, deflate, br", .secFetchSite: "same-origin"]
            for uri in ["/", "/api/items", PageAssets().links(under: "").script] {
                try await client.execute(uri: uri, method: .get, headers: gzip) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentEncoding] == "gzip", "\(uri)")
                    #expect(response.headers[values: .vary].contains("Accept-Encoding"), "\(uri)")
                    let body = Array(Data(buffer: response.body))
                    #expect(response.headers[.contentLength] == String(body.count), "\(uri)")
                    let unpacked = try #require(try Self.gunzip(body), "\(uri)")
                    #expect(unpacked.count > body.count, "\(uri)")
                    if uri == "/" { #expect(unpacked == plain) }
                }
            }
            // Not compressed: another site's request, a client that refuses gzip or names none,
            // an image.
            let refusals: [(String, HTTPFields)] = [
                ("/", [.acceptEncoding: "gzip", .secFetchSite: "cross-site"]),
                ("/", [.acceptEncoding: "gzip;q=0, identity"]),
                ("/", [:]),
                ("/thumbnails/a.png", [.acceptEncoding: "gzip"]),
            ]
            for (uri, headers) in refusals {
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .ok && response.headers[.contentEncoding] == nil, "\(uri) \(headers)")
                }
            }
        }
    }

    @Test("the grid asks for the first screen's images at high priority, the others at the browser's")
    func firstScreen() async throws {
        let served = try ServedContainer()
        for index in 0..<40 {
            try Data("note \(index)\n".utf8).write(to: URL(fileURLWithPath: served.root + "/n\(index + 100).txt"))
        }
        try await served.test { client in
            try await client.execute(uri: "/", method: .get) { response in
                let items = Self.items(String(buffer: response.body)).filter { $0.contains("<img") }
                // Nothing rendered yet: every tile has an image to ask for, made on demand.
                #expect(items.count == 44, "\(items.count) tiles with an image")
                let eager = items.prefix(GridPage.firstScreenTiles)
                // All lazy: an image held back never holds the page's load event.
                #expect(items.allSatisfy { $0.contains("loading=\"lazy\"") })
                #expect(eager.allSatisfy { $0.contains("fetchpriority=\"high\"") })
                #expect(!items.dropFirst(GridPage.firstScreenTiles).contains { $0.contains("fetchpriority") })
            }
        }
    }

    @Test("the grid: every document, a failed one with its reason and no image, the store's totals, a policy")
    func grid() async throws {
        let served = try ServedContainer()
        try await served.test { client in
            // Render two: one thumbnail, one failure.
            try await client.execute(uri: "/thumbnails/a.png", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/thumbnails/broken.jpg", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                let html = String(buffer: response.body)
                #expect(Self.paths(html) == ["a.png", "broken.jpg", "notes.txt", "sub/letter.pdf"])
                let items = Self.items(html)
                // A fresh one: a versioned, lazy image with its size and its placeholder colour, at
                // high priority (a first screen's tile).
                #expect(items[0].hasPrefix("state-fresh"))
                #expect(items[0].contains("<img src=\"/thumbnails/a.png?v="))
                #expect(items[0].contains("loading=\"lazy\" fetchpriority=\"high\""))
                #expect(items[0].range(of: #"width="\d+" height="\d+""#, options: .regularExpression) != nil)
                #expect(items[0].range(of: "background-color: #[0-9a-f]{6}", options: .regularExpression) != nil)
                // The failed one shows why, without an image to break.
                #expect(items[1].hasPrefix("state-failed"))
                #expect(!items[1].contains("<img"))
                #expect(items[1].contains("class=\"no-thumbnail\">"))
                #expect(items[1].contains("JPEG") || items[1].contains("jpeg"))
                // Never rendered: a plain URL, made on demand when the browser asks.
                #expect(items[2].contains("<img src=\"/thumbnails/notes.txt?size=256\""))
                // Every size, for the browser to pick the one the tile needs at its pixel ratio.
                #expect(
                    items[2].contains(
                        "srcset=\"/thumbnails/notes.txt?size=256 256w, /thumbnails/notes.txt?size=512 512w, "
                            + "/thumbnails/notes.txt 1024w\""))
                #expect(html.contains("1–4 of 4 documents"))
                #expect(html.contains("1 fresh") && html.contains("1 failed"))
            }
            for uri in ["/", "/api/items", "/api/items/a.png", "/events"] {
                try await client.execute(uri: uri, method: .head) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.body.readableBytes == 0, "\(uri)")
                }
            }
            try await client.execute(uri: "/favicon.ico", method: .get) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/favicon.ico", method: .head) { #expect($0.status == .noContent) }
        }
    }

    @Test("filters, sort and pages come from the query, and every link keeps them")
    func filtersAndPages() async throws {
        let served = try ServedContainer()
        try await served.test { client in
            try await client.execute(uri: "/?type=pdf", method: .get) { response in
                #expect(Self.paths(String(buffer: response.body)) == ["sub/letter.pdf"])
            }
            try await client.execute(uri: "/?pattern=not", method: .get) { response in
                #expect(Self.paths(String(buffer: response.body)) == ["notes.txt"])
            }
            try await client.execute(uri: "/?pattern=*.PNG", method: .get) { response in
                #expect(Self.paths(String(buffer: response.body)).isEmpty)
                #expect(String(buffer: response.body).contains("No documents match."))
            }
            let sizes = try [
                "a.png", "broken.jpg", "notes.txt", "sub/letter.pdf",
            ].map { path in
                (path, try FileManager.default.attributesOfItem(atPath: served.root + "/" + path)[.size] as! Int)
            }
            let bySize = sizes.sorted { ($0.1, $0.0) > ($1.1, $1.0) }.map(\.0)
            let first = try await client.execute(uri: "/?sort=size&reverse=1&limit=3", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(Self.paths(html) == Array(bySize.prefix(3)))
                #expect(html.contains("1–3 of 4 documents"))
                #expect(Self.link("previous-page", in: html) == nil)
                // The preview links keep the view (without the page).
                #expect(html.contains("/preview/\(bySize[0])?sort=size&amp;reverse=1\""))
                return Self.link("next-page", in: html)
            }
            #expect(first == "/?sort=size&reverse=1&offset=3&limit=3")
            try await client.execute(uri: first ?? "/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(Self.paths(html) == [bySize[3]])
                #expect(html.contains("4–4 of 4 documents"))
                #expect(Self.link("next-page", in: html) == nil)
                #expect(Self.link("previous-page", in: html) == "/?sort=size&reverse=1&limit=3")
            }
            // Past the end, as far as an offset goes: an empty page that says so (it was an
            // overflow, a crash; then "4–4 of 4" over no document), "previous" to the last page.
            try await client.execute(uri: "/?offset=\(Int.max)&limit=3", method: .get) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("past the end of 4 documents"))
                #expect(!html.contains("4–4 of 4"))
                #expect(Self.link("previous-page", in: html) == "/?offset=3&limit=3")
            }
            for bad in ["/?sort=colour", "/?limit=0", "/?offset=-1", "/?status=shiny", "/?pattern=%zz"] {
                try await client.execute(uri: bad, method: .get) { #expect($0.status == .badRequest, "\(bad)") }
            }
        }
    }

    @Test("a query is decoded as Foundation decodes a form's: + a space, %XX a byte, bad escapes and bytes refused")
    func queryDecoding() throws {
        let samples = [
            "plain", "a+b", "%41%42", "%e2%82%AC", "caf%C3%A9", "%2B", "100%", "%4", "%zz", "%G1", "%ff", "%C3",
            "%00", "%20+%20", "", "日本", "%E6%97%A5+本",
        ]
        for sample in samples {
            let foundation = sample.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            #expect(PageQuery.formDecoded(sample[...]) == foundation, "\(sample)")
        }
        #expect(
            try PageQuery.parameters("pattern=a%2Bb+c&sort=name&empty") == [
                "pattern": "a+b c", "sort": "name", "empty": "",
            ])
        #expect(throws: ServerError.self) { try PageQuery.parameters("ok=1&bad=%e2%82") }
        // Split on the bytes: a `&` or `=` before a combining mark still separates.
        #expect(try PageQuery.parameters("v=1&\u{301}x=\u{301}2&&=") == ["v": "1", "\u{301}x": "\u{301}2", "": ""])
        #expect(try PageQuery.parameters(nil).isEmpty && PageQuery.parameters("").isEmpty)
    }

    @Test("the preview: previous / next in the grid's order and filter, the grid's page, attributes, 404s")
    func preview() async throws {
        let served = try ServedContainer()
        try await served.test { client in
            try await client.execute(uri: "/preview/notes.txt", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(Self.link("previous", in: html) == "/preview/broken.jpg")
                #expect(Self.link("next", in: html) == "/preview/sub/letter.pdf")
                #expect(Self.link("up", in: html) == "/")
                #expect(Self.link("original", in: html) == "/documents/notes.txt")
                #expect(html.contains("3 of 4"))
                #expect(html.contains("<dt>Kind</dt><dd>text</dd>"))
                #expect(html.contains("id=\"preview-image\" src=\"/thumbnails/notes.txt\""))
            }
            // In a filtered view the neighbours are those of the filter; the first has no previous.
            try await client.execute(uri: "/preview/a.png?pattern=*.p*", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(Self.link("previous", in: html) == nil)
                #expect(Self.link("next", in: html) == "/preview/sub/letter.pdf?pattern=%2A.p%2A")
                #expect(html.contains("1 of 2"))
            }
            // The way back lands on the page that holds the document.
            try await client.execute(uri: "/preview/sub/letter.pdf?limit=2", method: .get) { response in
                #expect(Self.link("up", in: String(buffer: response.body)) == "/?offset=2&limit=2")
            }
            for uri in ["/preview/nope.txt", "/preview/escape.txt", "/preview/../notes.txt", "/preview/.thumbnails"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .notFound, "\(uri)") }
            }
        }
    }

    @Test("a file named like markup shows as text in the grid and the preview; bidi overrides are made visible")
    func hostileNames() async throws {
        let served = try ServedContainer()
        let script = "<img src=x onerror=alert(1)>.txt"
        let bidi = "invoice\u{202E}fdp.txt"
        for name in [script, bidi] {
            try Data("hello\n".utf8).write(to: URL(fileURLWithPath: served.root + "/" + name))
        }
        try await served.test { client in
            let html = try await client.execute(uri: "/", method: .get) { String(buffer: $0.body) }
            #expect(!html.contains("<img src=x"))
            #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;.txt"))
            // The override is shown escaped; only the machine-readable data-path holds the
            // path as it is, the same string the change events carry.
            let shown = html.replacingOccurrences(of: "data-path=\"\(bidi)\"", with: "")
            #expect(!shown.contains("\u{202E}"))
            #expect(html.contains("invoice\\u{202E}fdp.txt"))
            #expect(Self.paths(html).contains(bidi))
            // Its links are percent-encoded, so the path comes back whole.
            #expect(html.contains("/preview/%3Cimg%20src=x%20onerror=alert(1)%3E.txt"))
            try await client.execute(uri: "/preview/%3Cimg%20src=x%20onerror=alert(1)%3E.txt", method: .get) {
                response in
                let page = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(!page.contains("<img src=x"))
                #expect(page.contains("<h1>&lt;img src=x onerror=alert(1)&gt;.txt</h1>"))
            }
        }
    }

    @Test("a tile's data-path is the path its change event carries, for a name that is not UTF-8 too")
    func dataPathMatchesEvents() async throws {
        let served = try ServedContainer()
        let bytes = Array("bad".utf8) + [0xFF] + Array(".txt".utf8)
        let path = FileName.decode(bytes)
        let descriptor = FileName.withCString(served.root + "/" + path) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        try #require(descriptor >= 0)
        close(descriptor)
        let event = PreviewServer.serverSentEvent(.removed(path: path))
        let json = try #require(event.split(separator: "\n").first { $0.hasPrefix("data: ") }).dropFirst(6)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let carried = try #require(object["path"] as? String)
        try await served.test { client in
            let html = try await client.execute(uri: "/", method: .get) { String(buffer: $0.body) }
            #expect(Self.paths(html).contains(carried), "\(Self.paths(html))")
            // The name is shown with its byte made visible.
            #expect(html.contains("bad\\xFF.txt"))
        }
    }

    @Test("no template writes a value unescaped")
    func templatesEscape() {
        for (name, text) in PageTemplates.sources {
            #expect(!text.contains("{{{") && !text.contains("{{&"), "\(name)")
        }
    }

    @Test("assets: versioned URLs are immutable, others are checked; an unknown one is a 404")
    func assets() async throws {
        let served = try ServedContainer()
        let links = PageAssets().links
        try await served.test { client in
            try await client.execute(uri: links.script, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(String(buffer: response.body).contains("ArrowLeft"))
            }
            try await client.execute(uri: "/assets/glance.css", method: .get) { response in
                #expect(response.headers[.cacheControl] == "no-cache")
            }
            try await client.execute(uri: "/assets/passwd", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test("several containers: each under /c/NAME/, / lists them, names made unique and URL-safe")
    func site() async throws {
        let first = try ServedContainer()
        let second = try ServedContainer()
        var one = first.server
        one.title = "Photos 2024"
        var two = second.server
        two.title = "Photos 2024"
        let site = PreviewSite(containers: [one, two])
        #expect(site.containers.map(\.name) == ["Photos-2024", "Photos-2024-2"])
        let application = Application(router: site.router())
        try await application.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("href=\"/c/Photos-2024/\""))
                #expect(html.contains("href=\"/c/Photos-2024-2/\""))
            }
            try await client.execute(uri: "/c/Photos-2024-2/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(Self.paths(html).count == 4)
                #expect(html.contains("href=\"/c/Photos-2024-2/preview/a.png\""))
                #expect(html.contains("<img src=\"/c/Photos-2024-2/thumbnails/a.png?"))
                #expect(html.contains("href=\"/\">Containers</a>"))
            }
            try await client.execute(uri: "/c/Photos-2024/thumbnails/a.png", method: .get) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/c/Photos-2024/api/items", method: .get) {
                #expect($0.headers[HTTPField.Name("X-Total-Count")!] == "4")
            }
            try await client.execute(uri: "/thumbnails/a.png", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/c/nope/", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test("--base-path: every route and every link under /team/glance; nothing answers outside it")
    func basePath() async throws {
        let first = try ServedContainer()
        let alone = PreviewSite(containers: [first.server], basePath: "/team/glance")
        try await Application(router: alone.router()).test(.router) { client in
            try await client.execute(uri: "/team/glance/", method: .get) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("href=\"/team/glance/preview/a.png\""))
                #expect(html.contains("<img src=\"/team/glance/thumbnails/a.png"))
                #expect(html.contains("href=\"/team/glance/assets/glance.css?v="))
                #expect(html.contains("src=\"/team/glance/assets/glance.js?v="))
                // No link leaves the base path.
                let links = html.components(separatedBy: "=\"/").dropFirst().map {
                    "/" + ($0.split(separator: "\"").first ?? "")
                }
                #expect(links.allSatisfy { $0.hasPrefix("/team/glance/") }, "\(links)")
            }
            for uri in [
                "/team/glance/thumbnails/a.png", "/team/glance/documents/a.png", "/team/glance/api/items/a.png",
            ] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .ok, "\(uri)") }
            }
            try await client.execute(uri: "/team/glance" + PageAssets().links(under: "").stylesheet, method: .get) {
                #expect($0.status == .ok)
            }
            for uri in ["/", "/thumbnails/a.png", "/assets/glance.css", "/team/glance/documents/a.png/", "/team/"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .notFound, "\(uri)") }
            }
        }
        let second = try ServedContainer()
        let several = PreviewSite(containers: [first.server, second.server], basePath: "/glance")
        let name = several.containers[1].name
        try await Application(router: several.router()).test(.router) { client in
            try await client.execute(uri: "/glance/", method: .get) { response in
                #expect(String(buffer: response.body).contains("href=\"/glance/c/\(name)/\""))
            }
            try await client.execute(uri: "/glance/c/\(name)/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("href=\"/glance/c/\(name)/preview/a.png\""))
                #expect(html.contains("href=\"/glance/\">Containers</a>"))
            }
        }
        for (path, valid) in [
            ("/glance", true), ("/team/docs", true), ("/a.b_c~d-e", true), ("", false), ("/", false),
            ("/glance/", false), ("glance", false), ("/a//b", false), ("/../x", false), ("/a b", false),
            ("/caf\u{e9}", false),
        ] {
            #expect(PreviewSite.isBasePath(path) == valid, "\(path)")
        }
    }

    @Test("the thumbnail kept in memory goes when its document changes: new bytes, new ETag")
    func cacheFollowsTheDocument() async throws {
        let served = try ServedContainer()
        let path = served.root + "/notes.txt"
        try await served.test { client in
            let before = try await client.execute(uri: "/thumbnails/notes.txt", method: .get) { response in
                (response.headers[.eTag] ?? "", Data(buffer: response.body))
            }
            // Served again from memory: the same answer.
            try await client.execute(uri: "/thumbnails/notes.txt", method: .get) { response in
                #expect(response.headers[.eTag] == before.0)
                #expect(Data(buffer: response.body) == before.1)
            }
            try Data(String(repeating: "A different text altogether.\n", count: 40).utf8).write(
                to: URL(fileURLWithPath: path))
            try await client.execute(uri: "/thumbnails/notes.txt", method: .get, headers: [.ifNoneMatch: before.0]) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] != before.0)
                #expect(Data(buffer: response.body) != before.1)
            }
        }
    }
}

/// The site's two groups of routes: the public ones, and every other behind sign-in.
@Suite("route groups", .timeLimit(.minutes(10)))
struct RouteGroupTests {
    @Test(
        "a route added to the signed-in group is behind sign-in; unknown paths ask for it too; the public ones do not")
    func newRoutesArePrivate() async throws {
        let served = try ServedContainer()
        let alice = try Account(name: "alice", password: "a long password", containers: nil)
        let site = PreviewSite(containers: [served.server], accounts: AccountBook(Accounts([alice])))
        let router = site.router(hostCheck: nil, secure: false) { group in
            group.routerGroup.get("/added-later") { _, _ in "a private thing" }
        }
        let basic = "Basic " + Data("alice:a long password".utf8).base64EncodedString()
        try await Application(router: router).test(.router) { client in
            for uri in ["/added-later", "/", "/thumbnails/a.png", "/no/such/route", "/c/anything/"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .unauthorized, "\(uri)") }
            }
            try await client.execute(uri: "/added-later", method: .get, headers: [.authorization: basic]) {
                #expect($0.status == .ok && String(buffer: $0.body) == "a private thing")
            }
            try await client.execute(uri: "/no/such/route", method: .get, headers: [.authorization: basic]) {
                #expect($0.status == .notFound)
            }
            for uri in ["/healthz", "/readyz", "/sign-in", "/favicon.ico"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status.code < 400, "\(uri)") }
            }
        }
    }

    @Test("with several containers, a name that is no container's asks for an account as a real one does")
    func containerNamesAreNotListedToStrangers() async throws {
        let first = try ServedContainer()
        let second = try ServedContainer()
        var one = first.server
        one.title = "photos"
        var two = second.server
        two.title = "scans"
        let alice = try Account(name: "alice", password: "a long password", containers: ["photos"])
        let site = PreviewSite(containers: [one, two], accounts: AccountBook(Accounts([alice])))
        let basic = "Basic " + Data("alice:a long password".utf8).base64EncodedString()
        try await Application(router: site.router()).test(.router) { client in
            for uri in ["/c/photos/", "/c/nope/", "/c/photos/zzz", "/c/nope/zzz", "/c/scans/api/items", "/c"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .unauthorized, "\(uri)") }
            }
            for (uri, status) in [
                ("/c/photos/", HTTPResponse.Status.ok), ("/c/scans/", .notFound), ("/c/nope/", .notFound),
                ("/c/nope/zzz", .notFound),
            ] {
                try await client.execute(uri: uri, method: .get, headers: [.authorization: basic]) {
                    #expect($0.status == status, "\(uri)")
                }
            }
        }
    }

    @Test(
        "the metrics count a request under the route it matched, refused by sign-in or answered; HEAD is GET without the body"
    )
    func metricsCountTheMatchedRoute() async throws {
        let served = try ServedContainer()
        let alice = try Account(name: "alice", password: "a long password", containers: nil)
        let metrics = ProcessMetrics()
        let site = PreviewSite(containers: [served.server], accounts: AccountBook(Accounts([alice])), metrics: metrics)
        let basic = "Basic " + Data("alice:a long password".utf8).base64EncodedString()
        try await Application(router: site.router()).test(.router) { client in
            // Refused by sign-in before any handler ran: still counted under its route.
            try await client.execute(uri: "/thumbnails/a.png", method: .get) { #expect($0.status == .unauthorized) }
            // A document named like a route is still the route that matched: a thumbnail.
            try await client.execute(uri: "/thumbnails/api/items", method: .get, headers: [.authorization: basic]) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/no/such/route", method: .get, headers: [.authorization: basic]) {
                #expect($0.status == .notFound)
            }
            var pageLength = 0
            try await client.execute(uri: "/", method: .get, headers: [.authorization: basic]) {
                #expect($0.status == .ok)
                pageLength = $0.body.readableBytes
            }
            try await client.execute(uri: "/", method: .head, headers: [.authorization: basic]) {
                #expect($0.status == .ok && $0.body.readableBytes == 0)
                #expect($0.headers[.contentLength] == String(pageLength))
            }
            try await client.execute(uri: "/assets/glance.css?v=%zz", method: .get) {
                #expect($0.status == .badRequest)
            }
        }
        let exposition = String(decoding: metrics.exposition(), as: UTF8.self)
        for expected in [
            #"glance_http_requests_total{route="thumbnails",status="401"} 1"#,
            #"glance_http_requests_total{route="thumbnails",status="404"} 1"#,
            #"glance_http_requests_total{route="other",status="404"} 1"#,
            #"glance_http_requests_total{route="page",status="200"} 2"#,
            #"glance_http_requests_total{route="assets",status="400"} 1"#,
        ] {
            #expect(exposition.contains(expected), "\(expected) in \(exposition)")
        }
    }
}
