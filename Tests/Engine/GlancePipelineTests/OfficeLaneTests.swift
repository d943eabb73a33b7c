import Foundation
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

/// Office documents through a real pool: ordinary renderers sniff and check them and hand them
/// on to the office lane, whose renderers run LibreOffice (Debian's, which `.ci/run` installs)
/// under bubblewrap and the office seccomp filter, or seccomp alone.
@Suite("Office lane", .timeLimit(.minutes(10)), .serialized)
struct OfficeLaneTests {
    /// One row of `TestAssets/assets.tsv` under `office/`, `metafiles/` or `visio/`.
    struct Row: Sendable, CustomTestStringConvertible {
        let path: String
        let outcome: String
        let width: Int?
        let height: Int?
        var testDescription: String { path }
    }

    static let rows: [Row] = {
        guard let text = try? String(contentsOfFile: assets + "/assets.tsv", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 5, ["office/", "metafiles/", "visio/"].contains(where: fields[0].hasPrefix) else {
                return nil
            }
            return Row(path: fields[0], outcome: fields[2], width: Int(fields[3]), height: Int(fields[4]))
        }
    }()

    static let programFolder = OfficeLane.defaultProgramFolder

    /// A pool of one ordinary renderer under `sandbox`, with an office lane (unless `office` is
    /// false) of one renderer under the same sandbox.
    static func pool(
        sandbox: RendererSandbox? = nil, office: Bool = true, timeout: Double = 60, officeArguments: [String] = [],
        workspaceParent: String? = nil
    ) -> RendererPool {
        var configuration = RendererPool.Configuration(
            executable: rendererExecutable, arguments: [], renderers: 1,
            limits: RendererLimits(timeoutSeconds: 30),
            sandbox: sandbox ?? RendererLaunch.strongestSandbox(executable: rendererExecutable) ?? .seccomp)
        if office {
            var lane = OfficeLane(
                programFolder: programFolder, renderers: 1,
                limits: RendererLimits(timeoutSeconds: timeout, memoryMiB: 4096, cpuSeconds: 120))
            lane.workspaceParent = workspaceParent
            lane.arguments = officeArguments
            configuration.office = lane
        }
        return RendererPool(configuration: configuration)
    }

    static func render(
        _ path: String, on pool: RendererPool, name: String? = nil, maxSide: Int = 1024, page: Int = 1
    ) async throws -> JobResult {
        let file = try OpenFile.regularFile(atPath: assets + "/" + path)
        var job = RenderJob(id: 1, name: name ?? path, maxSide: maxSide)
        job.page = page
        return await pool.run(job, file: file)
    }

    @Test("the lane's default size: a renderer a processor, at most four")
    func defaultSize() {
        // Any machine the tests run on has more than 2 GiB, the other bound.
        #expect(OfficeLane.defaultRenderers(processors: 2) == 2)
        #expect(OfficeLane.defaultRenderers(processors: 1) == 1)
        #expect(OfficeLane.defaultRenderers(processors: 64) <= 4)
    }

    @Test("an office renderer's private /tmp is a tmpfs bounded by half its memory limit, not unbounded memory")
    func boundedTemporaryFolder() throws {
        var configuration = RendererPool.Configuration(
            executable: rendererExecutable, arguments: [], renderers: 1,
            limits: RendererLimits(timeoutSeconds: 30, memoryMiB: 1024, cpuSeconds: 60))
        configuration.officeProgramFolder = Self.programFolder
        let argv = configuration.launch(under: .bubblewrapAndSeccomp).commandLine.argv
        let tmpfs = try #require(argv.firstIndex(of: "--tmpfs"), "\(argv)")
        #expect(Array(argv[(tmpfs - 2)...(tmpfs + 1)]) == ["--size", String(512 << 20), "--tmpfs", "/tmp"])
        #expect(Bubblewrap.officeTemporaryBytes(memoryMiB: 64) == 64 << 20)
        // An ordinary renderer has no /tmp at all.
        configuration.officeProgramFolder = nil
        #expect(!configuration.launch(under: .bubblewrapAndSeccomp).commandLine.argv.contains("--tmpfs"))
    }

    @Test("the machine has LibreOffice where the lane looks for it")
    func installed() {
        #expect(OfficeLane.installed() != nil, "install libreoffice-writer, -calc, -impress and -draw")
        #expect(Self.rows.count >= 20)
    }

    @Test("every office asset renders to its size or fails with its reason, in the sandbox")
    func everyAsset() async throws {
        let pool = Self.pool()
        for row in Self.rows {
            let result = try await Self.render(row.path, on: pool)
            if row.outcome == "ok" {
                guard case .finished(let outcome) = result, outcome.status == .rendered else {
                    Issue.record("\(row.path): \(result.failureReason(naming: .init([:])) ?? "?")")
                    continue
                }
                if let width = row.width, let height = row.height {
                    #expect(
                        outcome.width == width && outcome.height == height,
                        "\(row.path): \(outcome.width)x\(outcome.height)")
                }
            } else {
                let reason = result.failureReason(naming: .init([:])) ?? "rendered"
                let fragment = String(row.outcome.dropFirst("error:".count))
                #expect(reason.lowercased().contains(fragment), "\(row.path): \(reason)")
                #expect(!reason.contains("\n"), "one line: \(reason)")
            }
        }
        await pool.shutdown()
    }

    @Test("an EMF and a WMF are drawn by LibreOffice cropped to their drawing, not as the page it places them on")
    func metafiles() async throws {
        let pool = Self.pool()
        for path in ["metafiles/halves.emf", "metafiles/halves.wmf"] {
            let result = try await Self.render(path, on: pool)
            guard case .finished(let outcome) = result, outcome.status == .rendered else {
                Issue.record("\(path): \(result)")
                continue
            }
            // The drawing is 3:2; LibreOffice places it on a US Letter page (791x1024 drawn whole).
            #expect(
                outcome.width == 1024 && (640...690).contains(outcome.height),
                "\(path): \(outcome.width)x\(outcome.height)")
        }
        await pool.shutdown()
    }

    @Test("a Visio drawing is drawn by LibreOffice's Draw: each drawing page a page, in its own colours")
    func visio() async throws {
        let pool = Self.pool()
        let first = try await Self.render("visio/flow.vsdx", on: pool)
        guard case .finished(let outcome) = first, outcome.status == .rendered else {
            Issue.record("\(first)")
            return
        }
        // LibreOfficeKit gives the pages the larger side of the largest, square: 11 inches.
        #expect(outcome.width == 1024 && outcome.height == 1024, "\(outcome.width)x\(outcome.height)")
        #expect(outcome.details?.pageCount == 2)
        #expect(outcome.details?.pageSize(2).map { Int($0.height.rounded()) } == 792)
        let second = try await Self.render("visio/flow.vsdx", on: pool, page: 2)
        guard case .finished(let portrait) = second, portrait.status == .rendered else {
            Issue.record("\(second)")
            return
        }
        #expect(portrait.data != outcome.data, "page 2 is the green box's page, not page 1 again")
        #expect(
            outcome.averageColour != portrait.averageColour,
            "\(outcome.averageColour ?? "") \(portrait.averageColour ?? "")")
        await pool.shutdown()
    }

    @Test("a Visio 2003-2010 drawing goes to LibreOffice's Draw too: an empty one is a blank Letter page")
    func legacyVisio() async throws {
        let pool = Self.pool()
        let result = try await Self.render("visio/empty-drawing.vsd", on: pool)
        guard case .finished(let outcome) = result, outcome.status == .rendered else {
            Issue.record("\(result)")
            await pool.shutdown()
            return
        }
        // Letter portrait (8.5 x 11 inches) at 1024 high.
        #expect(outcome.height == 1024 && abs(outcome.width - 791) <= 2, "\(outcome.width)x\(outcome.height)")
        #expect(outcome.details?.pageCount == 1)
        // Blank: white but for the page's hairline edge.
        let colour = outcome.averageColour.flatMap { Int($0.dropFirst(), radix: 16) } ?? 0
        #expect([16, 8, 0].allSatisfy { (colour >> $0) & 0xFF >= 0xF8 }, "\(outcome.averageColour ?? "")")
        await pool.shutdown()
    }

    @Test("pages, sheets and slides are pages: counted, sized, and each drawn on request")
    func pages() async throws {
        let pool = Self.pool()
        let letter = try await Self.render("office/letter.docx", on: pool)
        guard case .finished(let outcome) = letter else { Issue.record("letter: \(letter)"); return }
        #expect(outcome.details?.pageCount == 2)
        let second = outcome.details?.pageSize(2)
        #expect(second.map { Int($0.width.rounded()) } == 595 && second.map { Int($0.height.rounded()) } == 842)
        let sheet = try await Self.render("office/budget.xlsx", on: pool, page: 3)
        guard case .finished(let third) = sheet else { Issue.record("sheet: \(sheet)"); return }
        #expect(third.status == .rendered && third.details?.pageCount == 3)
        #expect(third.details?.pageNames == ["Budget", "Q2 figures", "Notes"])
        let beyond = try await Self.render("office/budget.xlsx", on: pool, page: 4)
        #expect(beyond.failureReason(naming: .init([:]))?.contains("no page 4: the document has 3 pages") == true)
        let deck = try await Self.render("office/deck-200.pptx", on: pool, page: 200)
        guard case .finished(let last) = deck else { Issue.record("deck: \(deck)"); return }
        #expect(last.status == .rendered && last.details?.pageCount == 200)
        await pool.shutdown()
    }

    @Test(
        "hidden and very hidden sheets are no pages and their names are not given, as a printout leaves them out",
        arguments: ["office/hidden-sheets.xlsx", "office/hidden-sheets.ods"])
    func hiddenSheets(path: String) async throws {
        let pool = Self.pool()
        let first = try await Self.render(path, on: pool)
        guard case .finished(let outcome) = first, outcome.status == .rendered else { Issue.record("\(first)"); return }
        #expect(outcome.details?.pageCount == 2)
        #expect(outcome.details?.pageNames == ["Budget", "Notes"])
        let second = try await Self.render(path, on: pool, page: 2)
        guard case .finished(let notes) = second else { Issue.record("\(second)"); return }
        #expect(notes.status == .rendered)
        #expect(notes.data != outcome.data, "page 2 is the Notes sheet, not Budget again")
        let beyond = try await Self.render(path, on: pool, page: 3)
        #expect(beyond.failureReason(naming: .init([:]))?.contains("the document has 2 pages") == true)
        await pool.shutdown()
    }

    @Test(
        "a font one document embeds (boxes, named Calibri) never draws the next document: its renderer is replaced"
    )
    func embeddedFontsDoNotOutliveTheirDocument() async throws {
        let fresh = Self.pool()
        let alone = try await Self.render("office/calibri-letter.docx", on: fresh)
        await fresh.shutdown()
        guard case .finished(let expected) = alone, expected.status == .rendered else {
            Issue.record("\(alone)")
            return
        }
        let pool = Self.pool()
        let embedder = try await Self.render("office/font-embedder.odt", on: pool)
        guard case .finished(let embedded) = embedder else { Issue.record("\(embedder)"); return }
        #expect(embedded.status == .rendered)
        #expect(embedded.retire == .documentFonts)
        let after = try await Self.render("office/calibri-letter.docx", on: pool)
        guard case .finished(let letter) = after, letter.status == .rendered else { Issue.record("\(after)"); return }
        #expect(letter.data == expected.data, "the letter after the embedder is drawn as it is alone")
        #expect(letter.retire == nil)
        #expect(pool.startedOfficeRenderers == 2)
        await pool.shutdown()
    }

    @Test(
        "a letter's tracked deletion, insertion and comment are drawn as it prints: as the same letter with the changes accepted"
    )
    func trackedChangesAsPrinted() async throws {
        let pool = Self.pool()
        let marked = try await Self.render("office/tracked-changes.docx", on: pool)
        let accepted = try await Self.render("office/tracked-changes-accepted.docx", on: pool)
        await pool.shutdown()
        guard case .finished(let drawn) = marked, case .finished(let expected) = accepted,
            drawn.status == .rendered, expected.status == .rendered
        else {
            Issue.record("\(marked), \(accepted)")
            return
        }
        #expect(drawn.data == expected.data, "struck-through figures or a comment's mark were drawn")
    }

    @Test("the thumbnail a document carries serves a box it fills, and stands in when LibreOffice is missing")
    func embeddedThumbnail() async throws {
        // letter.odt carries LibreOffice's 362x512 Thumbnails/thumbnail.png.
        let pool = Self.pool()
        let small = try await Self.render("office/letter.odt", on: pool, maxSide: 512)
        guard case .finished(let fast) = small else { Issue.record("\(small)"); return }
        #expect(fast.status == .rendered && fast.contentType == .openDocumentText)
        #expect(max(fast.sourceWidth, fast.sourceHeight) == 512, "drawn from the embedded picture, not the page")
        let large = try await Self.render("office/letter.odt", on: pool, maxSide: 1024)
        guard case .finished(let drawn) = large else { Issue.record("\(large)"); return }
        #expect(drawn.sourceWidth == 595 && drawn.height == 1024, "the 1024 is LibreOffice's page")
        await pool.shutdown()

        let without = Self.pool(office: false)
        let stand = try await Self.render("office/letter.odt", on: without)
        guard case .finished(let stood) = stand else { Issue.record("\(stand)"); return }
        #expect(stood.status == .rendered && max(stood.width, stood.height) == 512)
        #expect(stood.warnings.contains { $0.contains("no LibreOffice renderer") })
        // Its second page is not the carried picture: without LibreOffice there is none.
        let second = try await Self.render("office/letter.odt", on: without, maxSide: 256, page: 2)
        #expect(second.failureReason(naming: .init([:]))?.contains("drawn by LibreOffice's renderers") == true)
        let none = try await Self.render("office/letter.docx", on: without)
        #expect(none.failureReason(naming: .init([:]))?.contains("there are none here") == true)
        await without.shutdown()
    }

    @Test("a hung office renderer is killed at the time limit, leaves no file, and the next document renders")
    func hungRendererReplaced() async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("office-\(getpid())-\(UUID())").path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        // LibreOffice's own temporary files (`lu*.tmp`) in the machine's /tmp before the pool.
        func strayTemporaries() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { $0.hasPrefix("lu") })
        }
        let before = try strayTemporaries()
        // seccomp alone, so that the workspace is a folder this test can see.
        let pool = Self.pool(
            sandbox: .seccomp, timeout: 8, officeArguments: ["--debug-hang-on", "hang-*"], workspaceParent: parent)
        defer { #expect((try? strayTemporaries().subtracting(before)) == [], "LibreOffice wrote in /tmp") }
        let hung = try await Self.render("office/letter.docx", on: pool, name: "hang-letter.docx")
        guard case .timedOut(_, let limit) = hung else { Issue.record("expected a time-out, got \(hung)"); return }
        #expect(limit == .officeTime)
        #expect(
            hung.failureReason(naming: LimitNames([.time: "--timeout", .officeTime: "--office-timeout"]))
                == "timed out after 8 s (--office-timeout)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: parent).isEmpty,
            "the killed renderer's workspace is gone")
        let next = try await Self.render("office/letter.docx", on: pool)
        guard case .finished(let outcome) = next else { Issue.record("\(next)"); return }
        #expect(outcome.status == .rendered)
        await pool.shutdown()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: parent).isEmpty, "nothing left after the pool stops")
    }

    @Test("nothing reaches outside: no macro runs, no linked template or image is fetched")
    func nothingReachesOutside() async throws {
        // A listener where remote-links.docx's template and image are; seccomp alone, so that the
        // renderer shares this network: LibreOffice's settings and the filter keep it off.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(38917).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0, "port 38917 (the asset's links) is taken on this machine")
        #expect(listen(listener, 8) == 0)
        let flags = fcntl(listener, F_GETFL)
        _ = fcntl(listener, F_SETFL, flags | O_NONBLOCK)
        let marker = "/tmp/glance-office-macro-ran"
        unlink(marker)

        let pool = Self.pool(sandbox: .seccomp)
        for path in ["office/remote-links.docx", "office/macro.odt"] {
            let result = try await Self.render(path, on: pool)
            guard case .finished(let outcome) = result else { Issue.record("\(path): \(result)"); continue }
            #expect(outcome.status == .rendered, "\(path)")
        }
        await pool.shutdown()
        #expect(accept(listener, nil, nil) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), "a connection came")
        #expect(access(marker, F_OK) != 0, "the macro ran")
    }

    @Test(
        "nothing a document links to is opened: a clip (embedded, linked, a playlist's segments) is never played, a linked picture (ODT, ODS, RTF) never read (inotify), under seccomp alone and under bubblewrap",
        arguments: [RendererSandbox.seccomp, nil])
    func linkedFilesNeverOpened(sandbox: RendererSandbox?) async throws {
        // The folder the documents' links name (TestAssets/generate.py: LINKED_MEDIA), with the
        // files they name, watched for any open.
        let folder = "/tmp/glance-linked-media"
        mkdir(folder, 0o755)
        for (name, asset) in [
            ("clip.mp4", "media/one-frame.mp4"), ("segment.ts", "media/one-frame.mp4"), ("photo.png", "png/rgb8.png"),
        ] {
            unlink(folder + "/" + name)
            try FileManager.default.copyItem(atPath: assets + "/" + asset, toPath: folder + "/" + name)
        }
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        #expect(watch >= 0)
        defer { close(watch) }
        #expect(inotify_add_watch(watch, folder, UInt32(IN_OPEN | IN_ACCESS)) >= 0)
        // A hung renderer would take the whole limit: 20 s is ten times a deck's render.
        let pool = Self.pool(sandbox: sandbox, timeout: 20)
        for path in [
            "office/embedded-video.odp", "office/linked-video.odp", "office/embedded-playlist.odp",
            "office/linked-picture.odt", "office/linked-picture.ods", "office/linked-picture.rtf",
        ] {
            let result = try await Self.render(path, on: pool)
            guard case .finished(let outcome) = result else { Issue.record("\(path): \(result)"); continue }
            #expect(outcome.status == .rendered, "\(path): \(outcome.error ?? "")")
        }
        await pool.shutdown()
        var events = [UInt8](repeating: 0, count: 4096)
        let count = read(watch, &events, events.count)
        #expect(count < 0 && errno == EAGAIN, "a file the decks link to was opened (\(count) bytes of events)")
    }
}
