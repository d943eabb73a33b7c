import Foundation
import GlanceCore
import GlanceDesktopCache
import GlanceTestSupport
import Testing

/// `--xdg` end to end, judged by a client nobody here wrote: GIO (`gio info`, from Debian's
/// libglib2.0-bin, which `make test` installs), the library GNOME Files and its kin ask.
@Suite("Desktop cache (GIO)", .timeLimit(.minutes(10)), .serialized)
struct DesktopCacheCommandTests {
    /// Documents with names that need escaping in a URI, a corrupt one and an unsupported one.
    static let files = [
        "photo one.jpg": "jpeg/photo-baseline.jpg",
        "café/écran #2.png": "png/rgba8.png",
        "50% off.pdf": "pdf/letter.pdf",
        "notes;[draft].txt": "text/latin-utf8.txt",
        "broken.jpg": "corrupt/truncated-header.jpg",
        "data.bin": "corrupt/unknown.bin",
    ]
    static let rendered = ["photo one.jpg", "café/écran #2.png", "50% off.pdf", "notes;[draft].txt"]

    @Test("after generate --xdg, GIO finds a valid xx-large thumbnail for every document, and the failure")
    func generateThenGIO() async throws {
        let container = try SampleContainer(Self.files)
        let cacheHome = container.output("cache")
        let environment = ["XDG_CACHE_HOME": cacheHome]
        let run = try await GlanceProcess.run(
            ["generate", container.path, "--xdg", "--json"], environment: environment)
        #expect(run.status == 1)  // broken.jpg failed
        let summary = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        let desktop = try #require(summary?["desktopCache"] as? [String: Any])
        #expect(desktop["written"] as? Int == 4)
        #expect(desktop["failureEntries"] as? Int == 1)

        let root = cacheHome + "/thumbnails"
        for name in Self.rendered {
            let info = try await GIO.info(container.file(name), cacheHome: cacheHome)
            let uri = try #require(info.uri)
            #expect(uri == FileURI.of(absolutePath: container.file(name)), "GIO's URI of \(name)")
            let expected = "\(root)/xx-large/\(FreedesktopCache.entryName(for: uri))"
            #expect(info.attributes["thumbnail::path"] == expected, "\(name)")
            #expect(info.attributes["thumbnail::is-valid"] == "TRUE", "\(name)")
            try checkEntries(of: container.file(name), uri: uri, root: root, sizes: CacheSize.allCases)
        }
        let broken = try await GIO.info(container.file("broken.jpg"), cacheHome: cacheHome)
        #expect(broken.attributes["thumbnail::failed"] == "TRUE")
        #expect(broken.attributes["thumbnail::path"] == nil)
        let unsupported = try await GIO.info(container.file("data.bin"), cacheHome: cacheHome)
        #expect(unsupported.attributes["thumbnail::failed"] == nil)
        #expect(unsupported.attributes["thumbnail::path"] == nil)

        // The document changes: GIO sees the entry is no longer valid, list says stale, and the
        // next run makes it valid again.
        let changed = container.file("photo one.jpg")
        try setModified(changed, secondsAgo: 3600)
        #expect(try await GIO.info(changed, cacheHome: cacheHome).attributes["thumbnail::is-valid"] == "FALSE")
        let listed = try await GlanceProcess.run(["list", container.path, "--xdg"], environment: environment)
        let photoLine = try #require(
            listed.standardOutput.split(separator: "\n").first { $0.hasPrefix("photo one.jpg") })
        #expect(photoLine.hasSuffix("stale"))
        let pdfLine = try #require(listed.standardOutput.split(separator: "\n").first { $0.hasPrefix("50% off.pdf") })
        #expect(pdfLine.hasSuffix("xx-large"))
        let again = try await GlanceProcess.run(["generate", container.path, "--xdg"], environment: environment)
        #expect(again.standardOutput.contains("rendered     1"))
        #expect(try await GIO.info(changed, cacheHome: cacheHome).attributes["thumbnail::is-valid"] == "TRUE")
    }

    @Test("an emptied cache is filled from the store without rendering anything again")
    func fillFromStore() async throws {
        let container = try SampleContainer(Self.files)
        let cacheHome = container.output("cache")
        let environment = ["XDG_CACHE_HOME": cacheHome]
        _ = try await GlanceProcess.run(["generate", container.path])
        let first = try await GlanceProcess.run(
            ["generate", container.path, "--xdg", "--json"], environment: environment)
        let summary = try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any]
        #expect(summary?["rendered"] as? Int == 0)
        let desktop = try #require(summary?["desktopCache"] as? [String: Any])
        #expect(desktop["written"] as? Int == 4)
        for name in Self.rendered {
            let info = try await GIO.info(container.file(name), cacheHome: cacheHome)
            #expect(info.attributes["thumbnail::is-valid"] == "TRUE", "\(name)")
            try checkEntries(
                of: container.file(name), uri: try #require(info.uri), root: cacheHome + "/thumbnails",
                sizes: CacheSize.allCases)
        }
        await #expect(
            try GIO.info(container.file("broken.jpg"), cacheHome: cacheHome).attributes["thumbnail::failed"] == "TRUE")
        // A third run finds everything valid and writes nothing.
        let third = try await GlanceProcess.run(
            ["generate", container.path, "--xdg", "--json"], environment: environment)
        let thirdSummary = try JSONSerialization.jsonObject(with: Data(third.standardOutput.utf8)) as? [String: Any]
        let thirdDesktop = try #require(thirdSummary?["desktopCache"] as? [String: Any])
        #expect(thirdDesktop["written"] as? Int == 0)
        #expect(thirdDesktop["unchanged"] as? Int == 5)
    }

    @Test("thumbnail --xdg writes the sizes asked for; bad sizes are refused")
    func thumbnailCommand() async throws {
        let container = try SampleContainer(["pages/a b.pdf": "pdf/letter.pdf"])
        let cacheHome = container.output("cache")
        let environment = ["XDG_CACHE_HOME": cacheHome]
        let run = try await GlanceProcess.run(
            ["thumbnail", "pages/a b.pdf", "--xdg", "--xdg-sizes", "large,normal"], in: container.path,
            environment: environment)
        #expect(run.status == 0, "\(run.standardError)")
        let info = try await GIO.info(container.file("pages/a b.pdf"), cacheHome: cacheHome)
        let uri = try #require(info.uri)
        #expect(
            info.attributes["thumbnail::path"]
                == "\(cacheHome)/thumbnails/large/\(FreedesktopCache.entryName(for: uri))")
        #expect(info.attributes["thumbnail::is-valid"] == "TRUE")
        try checkEntries(
            of: container.file("pages/a b.pdf"), uri: uri, root: cacheHome + "/thumbnails", sizes: [.large, .normal])
        #expect(!FileManager.default.fileExists(atPath: cacheHome + "/thumbnails/xx-large"))
        // Without -o nothing but the cache is written.
        #expect(!FileManager.default.fileExists(atPath: container.file("a b.pdf.thumbnail.png")))
        let bad = try await GlanceProcess.run([
            "thumbnail", container.file("pages/a b.pdf"), "--xdg", "--xdg-sizes", "huge",
        ])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("unknown thumbnail size 'huge'"))
    }

    @Test("a cache folder planted as a symbolic link is refused, never written through")
    func plantedLinks() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let cacheHome = container.output("cache")
        let elsewhere = container.output("elsewhere")
        try FileManager.default.createDirectory(atPath: cacheHome + "/thumbnails", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        for planted in ["thumbnails/large", "thumbnails/fail"] {
            let link = cacheHome + "/" + planted
            #expect(symlink(elsewhere, link) == 0)
            let run = try await GlanceProcess.run(
                ["thumbnail", container.file("a.png"), "--xdg"], environment: ["XDG_CACHE_HOME": cacheHome])
            #expect(run.status == 2)
            #expect(
                run.standardError.contains(
                    "\(planted): it is a symbolic link: the cache's own folders are never followed"),
                "\(run.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
            #expect(unlink(link) == 0)
        }
        // The cache folder the user names may itself be a link: it is theirs.
        let linkedHome = container.output("linked-cache")
        #expect(symlink(cacheHome, linkedHome) == 0)
        let run = try await GlanceProcess.run(
            ["thumbnail", container.file("a.png"), "--xdg", "--xdg-sizes", "normal"],
            environment: ["XDG_CACHE_HOME": linkedHome])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cacheHome + "/thumbnails/normal").count == 1)
    }

    @Test("a cache size folder any user may write, or another user's, is refused with the reason, not written")
    func foreignSizeFolders() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let cacheHome = container.output("cache")
        let large = cacheHome + "/thumbnails/large"
        try FileManager.default.createDirectory(atPath: large, withIntermediateDirectories: true)
        chmod(large, 0o777)
        let open = try await GlanceProcess.run(
            ["thumbnail", container.file("a.png"), "--xdg", "--xdg-sizes", "large"],
            environment: ["XDG_CACHE_HOME": cacheHome])
        #expect(open.status == 2)
        #expect(open.standardError.contains("thumbnails/large: any user may write it"), "\(open.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: large).isEmpty)
        if getuid() == 0 {
            chmod(large, 0o700)
            chown(large, 65534, 65534)
            let foreign = try await GlanceProcess.run(
                ["thumbnail", container.file("a.png"), "--xdg", "--xdg-sizes", "large"],
                environment: ["XDG_CACHE_HOME": cacheHome])
            #expect(foreign.status == 2)
            #expect(foreign.standardError.contains("belongs to another user"), "\(foreign.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: large).isEmpty)
        }
    }

    // MARK: - Helpers

    /// Every entry of `sizes`: an 8-bit RGBA non-interlaced PNG inside its box, with the tEXt
    /// chunks of the document as it is now.
    private func checkEntries(of path: String, uri: String, root: String, sizes: [CacheSize]) throws {
        let status = try FileManager.default.attributesOfItem(atPath: path)
        let modified = Int64((status[.modificationDate] as! Date).timeIntervalSince1970.rounded(.down))
        let size = (status[.size] as! NSNumber).int64Value
        var largest: Int?
        for cacheSize in sizes.sorted(by: >) {
            let entry = "\(root)/\(cacheSize.folderName)/\(FreedesktopCache.entryName(for: uri))"
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: entry)))
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(bytes[24] == 8 && bytes[25] == 6 && bytes[28] == 0, "8-bit RGBA, not interlaced: \(entry)")
            #expect(max(width, height) <= cacheSize.side && min(width, height) >= 1)
            // The largest fills its box unless the document is smaller; the others are scaled from it.
            let longest = max(width, height)
            if let largest {
                #expect(longest == min(cacheSize.side, largest), "\(width)x\(height) in \(cacheSize.side)")
            }
            largest = largest ?? longest
            let texts = try #require(PNGTextChunks.read(bytes))
            #expect(texts["Thumb::URI"] == uri)
            #expect(texts["Thumb::MTime"] == String(modified))
            #expect(texts["Thumb::Size"] == String(size))
            #expect(texts["Thumb::Mimetype"] != nil)
            #expect(texts["Software"]?.hasPrefix("Glance ") == true)
            let permissions = try FileManager.default.attributesOfItem(atPath: entry)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
        }
    }

    private func setModified(_ path: String, secondsAgo: Double) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)], ofItemAtPath: path)
    }
}

/// `gio info -a 'thumbnail::*' FILE`, parsed.
enum GIO {
    struct Info {
        var uri: String?
        var attributes: [String: String] = [:]
    }

    static func info(_ path: String, cacheHome: String) async throws -> Info {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gio")
        process.arguments = ["info", "-a", "thumbnail::*", "--", path]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "XDG_CACHE_HOME": cacheHome, "GIO_USE_VFS": "local",
        ]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gio") else {
            throw GIOMissing()
        }
        try process.run()
        let data = await readToEnd(output.fileHandleForReading)
        #expect(await exited(process, within: .seconds(60)), "process ended")
        var info = Info()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("uri: ") { info.uri = String(text.dropFirst(5)) }
            if text.hasPrefix("thumbnail::"), let colon = text.range(of: ": ") {
                info.attributes[String(text[..<colon.lowerBound])] = String(text[colon.upperBound...])
            }
        }
        return info
    }

    struct GIOMissing: Error, CustomStringConvertible {
        var description: String { "gio is not installed: `make test-deps` installs Debian's libglib2.0-bin" }
    }
}
