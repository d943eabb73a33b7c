import ArgumentParser
import Dispatch
import GlanceCore
import GlanceDesktopCache
import GlancePipeline
import Synchronization

/// `glance thumbnail FILE`: one document's thumbnail, written to a file; no container involved.
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Render one document's thumbnail (fits 1024x1024) to a file.",
        discussion: """
            Prints 'OUT WIDTHxHEIGHT' on success ('-o -' writes the image to standard output \
            instead). On failure prints one line, 'glance: FILE: reason', leaves no OUT behind and \
            exits 1. The document is decoded in a supervised renderer process, as in 'glance \
            generate': a crash or hang in a decoder is reported as a failure of this file (within \
            --timeout), never a crash of glance. FILE must be a regular file; OUT is never the \
            document itself, and an OUT that exists must be a regular file (it is replaced \
            atomically). With --xdg the thumbnail also goes into the desktop's thumbnail cache (each \
            of --xdg-sizes, printed as 'ENTRY WIDTHxHEIGHT'), and OUT is written only when -o \
            names it; a document that fails gets the cache's failure entries.
            """
    )

    /// How the output format is chosen.
    enum FormatChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, png, jpeg
    }

    @Argument(
        help: ArgumentHelp(
            "The document: a PDF, PNG, JPEG, JPEG XL, JPEG 2000, WebP, GIF, TIFF, HEIC, AVIF, SVG or plain-text file, a video (a frame"
                + " is drawn), a sound file (its cover), a camera raw photo (DNG, CR2, CR3, NEF, ARW, ORF, RW2, RAF:"
                + " its preview, or developed), an EPUB or Mobipocket book (its cover), a comic book (CBZ, CBR, CB7: a"
                + " page), an office document (Word, Excel, PowerPoint, Visio, Publisher, OpenDocument, RTF: drawn by"
                + " LibreOffice), an HDR picture (OpenEXR, Radiance, floating-point TIFF), a BMP,"
                + " Windows or macOS icon, Targa, Netpbm, PAM, QOI, PCX, DCX (a page), SGI, Sun raster, XPM or XBM image, an X window dump, a DDS texture, a FITS image, a WBMP, a Photoshop document, a GIMP image (its layers composed; .xcf.gz, .xcf.bz2, .xcf.xz too), a PostScript or EPS file, a DjVu document or an XPS print (a page), a font (a sheet in the font; X11's PCF and BDF bitmap fonts too), an EMF or WMF drawing, or a file drawn from the preview it carries"
                + " (OpenRaster, Krita, Pages, Keynote, Numbers, Blender, SketchUp, InDesign, Sketch, Procreate, Figma, Affinity)."
                + " A text or a PDF kept compressed whole (.gz, .xz, .zst; .bz2 when named so under it: a rotated log,"
                + " a changelog.gz, a report.pdf.gz) is drawn as the plain file."
        )
    )
    var file: String

    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp(
            "Where to write the thumbnail; its extension (.png, .jpg) picks the format; '-' is standard output (PNG unless --format jpeg). Default: FILE's name + '.thumbnail.png' (or '.jpg') in the current folder.",
            valueName: "OUT"))
    var output: String?

    @Option(help: "auto (JPEG for opaque photos, PNG otherwise), png or jpeg.")
    var format: FormatChoice = .auto

    @OptionGroup var limits: DocumentLimitOptions

    @Option(parsing: .unconditional, help: "The box the thumbnail fits into, in pixels (1 to 4096).")
    var size: Int = ThumbnailLimits.defaultMaxSide

    @Option(
        parsing: .unconditional,
        help: "The page to draw, from 1: any page of a PDF or a TIFF (every other document has page 1 only).")
    var page: Int = 1

    @OptionGroup var rendererLimits: RendererLimitOptions

    @Flag(help: "Write OUT even when it is the document itself (a hard link to it, or the same path).")
    var force = false

    @OptionGroup var desktop: DesktopCacheOptions

    @OptionGroup var debug: DebugTriggerOptions

    @OptionGroup var sandbox: SandboxOptions

    @Flag(name: .shortAndLong, help: "Say what was found on the way (type, source size, decoder warnings) on stderr.")
    var verbose = false

    func validate() throws {
        try OptionChecks.size(size)
        guard page >= 1 else { throw ValidationError("--page counts from 1.") }
        if desktop.xdg && page != 1 {
            throw ValidationError("--xdg stores a document's first page: drop --page, or write the page with -o.")
        }
        if desktop.xdg, let largest = try desktop.sizes().first, largest.side > size {
            throw ValidationError(
                "--size \(size) is smaller than the cache's \(largest.folderName) (\(largest.side) px): raise --size or drop that size from --xdg-sizes."
            )
        }
        if let output, output != "-" {
            let named = ImageFormat(fileExtension: ContentType.fileExtension(of: output))
            if named == nil && format == .auto {
                throw ValidationError(
                    "Cannot tell the format from '\(output)': use a .png or .jpg name, or --format png|jpeg.")
            }
            if let named, format != .auto, named.rawValue != format.rawValue {
                throw ValidationError("'\(output)' names a \(named.rawValue) file but --format is \(format.rawValue).")
            }
        }
    }

    func run() throws {
        let document: OpenFile
        do {
            document = try OpenFile.regularFile(atPath: file)
        } catch {
            StandardError.report(path: file, ThumbnailError.unreadable(reason: error.description))
            throw ExitCode(1)
        }
        let protected = force ? [] : document.identity().map { [$0] } ?? []
        let cache = try desktop.openCache()
        if let output, output != "-" {
            // Refuse a bad OUT before spending a render on it.
            do {
                try AtomicFileWriter.checkDestination(output, protecting: protected)
            } catch {
                StandardError.report(path: file, error)
                throw ExitCode(1)
            }
        }
        let outcome: RenderOutcome
        let result = try renderInWorker(document, renditions: cache?.sizes.map(\.side) ?? [])
        var cacheFailed = false
        if let cache, let identity = document.identity() {
            cacheFailed = !recordInCache(cache, result: result, identity: identity)
        }
        guard case .finished(let finished) = result, finished.status == .rendered else {
            StandardError.report(path: file, result.failureReason(naming: .commandLine) ?? "")
            throw ExitCode(1)
        }
        outcome = finished
        if cache != nil && output == nil {
            reportVerbose(outcome, format: outcome.format ?? .png)
            if cacheFailed { throw ExitCode(1) }
            return
        }
        guard let format = outcome.format else {
            StandardError.report(path: file, "the renderer returned no image")
            throw ExitCode(1)
        }
        if output == "-" {
            guard DescriptorWriter.writeAll(outcome.data, to: 1) else {
                StandardError.report(
                    path: file, ThumbnailError.writeFailed(path: "standard output", reason: "write failed"))
                throw ExitCode(1)
            }
            reportVerbose(outcome, format: format)
            return
        }
        let destination = output ?? Self.defaultOutput(for: file, format: format)
        do {
            try AtomicFileWriter.write(outcome.data, to: destination, protecting: protected)
        } catch {
            StandardError.report(path: file, error)
            throw ExitCode(1)
        }
        reportVerbose(outcome, format: format)
        print("\(DisplayText.escaped(destination)) \(outcome.width)x\(outcome.height)")
        if cacheFailed { throw ExitCode(1) }
    }

    /// With `-v`: what was found on the way, on stderr.
    private func reportVerbose(_ outcome: RenderOutcome, format: ImageFormat) {
        guard verbose else { return }
        let kind = outcome.contentType?.displayName ?? "document"
        StandardError.write(
            "glance: \(file): \(kind), \(outcome.sourceWidth)x\(outcome.sourceHeight), \(outcome.byteCount) bytes of \(format.rawValue), \(outcome.milliseconds) ms"
        )
        if let count = outcome.details?.pageCount { StandardError.write("glance: \(file): page \(page) of \(count)") }
        if let colour = outcome.colour { StandardError.write("glance: \(file): \(colour.summary)") }
        for warning in outcome.warnings { StandardError.write("glance: \(file): warning: \(warning)") }
    }

    /// Writes the desktop cache's entries for the result (failure entries for a failure), and
    /// prints each entry's path; a cache that cannot be written fails the command.
    private func recordInCache(_ cache: FreedesktopCache, result: JobResult, identity: FileIdentity) -> Bool {
        var imageSize: PixelSize?
        var mimeType: String?
        var renditions: [Rendition] = []
        if case .finished(let finished) = result {
            mimeType = finished.contentType?.mimeType
            renditions = finished.status == .rendered ? finished.renditions : []
            if finished.contentType == .png || finished.contentType == .jpeg {
                imageSize = PixelSize(width: finished.sourceWidth, height: finished.sourceHeight)
            }
            // Another thumbnailer may know a type Glance does not: no failure entry for it.
            if finished.status == .unsupported { return true }
        }
        if case .cancelled = result { return true }
        let target = CacheDocument(
            absolutePath: DesktopCacheOptions.absolutePath(file), identity: identity, mimeType: mimeType,
            imageSize: imageSize)
        do throws(DesktopCacheError) {
            if renditions.isEmpty {
                try cache.writeFailure(for: target)
                return true
            }
            for (path, rendition) in try cache.write(renditions, for: target) {
                print("\(DisplayText.escaped(path)) \(rendition.width)x\(rendition.height)")
            }
            return true
        } catch {
            StandardError.report(path: file, "desktop cache: \(error)")
            return false
        }
    }

    /// Renders and encodes the open document in one supervised renderer process.
    private func renderInWorker(_ document: OpenFile, renditions: [Int] = []) throws -> JobResult {
        let triggers = debug.triggers
        let pool = RendererPool(
            configuration: try RendererLauncher.configuration(
                renderers: 1, limits: rendererLimits, sandbox: sandbox, triggers: triggers))
        defer { pool.shutdownBlocking() }
        let result = Mutex<JobResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        var job = RenderJob(
            id: 1, name: file, maxSide: size, maxPixels: limits.maxPixels, maxFileBytes: limits.maxFileBytes,
            computeDigest: false,
            format: requestedFormat,
            renditions: renditions)
        job.page = page
        pool.submit(job, file: document, lane: .interactive) { finished in
            result.withLock { $0 = finished }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .crashed(reason: "no answer from the renderer")
    }

    /// The format asked for by `-o`'s extension or `--format`; nil lets the content decide.
    private var requestedFormat: ImageFormat? {
        if let output, output != "-", let named = ImageFormat(fileExtension: ContentType.fileExtension(of: output)) {
            return named
        }
        if output == "-" && format == .auto { return .png }
        switch format {
        case .png: return .png
        case .jpeg: return .jpeg
        case .auto: return nil
        }
    }

    /// `FILE`'s base name + `.thumbnail.png` (or `.jpg`), in the current folder.
    static func defaultOutput(for file: String, format: ImageFormat) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        return "\(base).thumbnail.\(format.fileExtension)"
    }
}
