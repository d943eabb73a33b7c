internal import CFileAccess
internal import CProcess
import Dispatch
import GlanceContainer
import GlanceCore
import GlanceRender

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The worker side of the pool: runs inside `glance worker`, greets the pool once confined,
/// reads jobs from standard input, renders and encodes each, and writes the outcome to standard
/// output, until its input closes.
///
/// Everything that touches untrusted bytes happens here, in a process that the pool can lose:
/// a crash, a hang or a memory blow-up in a C library costs this process, not the batch.
public struct RendererService: Sendable {
    public var confinement: RendererConfinement
    public var triggers: RendererDebugTriggers
    /// Set for an office renderer: where LibreOffice is and where it may write.
    public var office: OfficeSetup?

    /// What an office renderer starts LibreOffice with.
    public struct OfficeSetup: Sendable {
        public var programFolder: String
        public var workspace: String
        /// Whether LibreOffice may start only where Landlock confines its file access.
        public var filesConfinementRequired: Bool

        public init(programFolder: String, workspace: String, filesConfinementRequired: Bool = false) {
            self.programFolder = programFolder
            self.workspace = workspace
            self.filesConfinementRequired = filesConfinementRequired
        }
    }

    public init(confinement: RendererConfinement, triggers: RendererDebugTriggers = RendererDebugTriggers()) {
        self.confinement = confinement
        self.triggers = triggers
    }

    /// Confines the process (limits, sandbox), says so (``RendererGreeting``), then serves jobs
    /// until standard input ends. Returns false if the sandbox could not be entered: no job was
    /// read.
    public func run() -> Bool {
        guard glance_die_with_parent() == 0 else { return true }
        // Every block from the heap, and freed ones kept (up to 256 MiB) for the next document:
        // a big progressive JPEG's coefficients (72 MB for 6000x4000), an interlaced PNG, a PDF
        // page's images need the same large buffers document after document, and mapping fresh
        // pages for each (the kernel zeroes them, a fault every 4 KiB) was 5% of a JPEG batch's
        // CPU and 15% of a large progressive photo's. A worker's peak stays what its largest
        // document needs; what it keeps goes back to the system after a second without work.
        _ = glance_reuse_freed_memory(256 << 20)
        // An office renderer starts LibreOffice inside its limits and before its sandbox: it
        // reads its configuration and loads its libraries then. A failure is every job's answer.
        var libreOffice: Result<LibreOffice, ThumbnailError>?
        guard
            confinement.apply(warmUp: {
                guard let office else { return }
                // Office documents are the background work of a batch: LibreOffice's threads (this
                // one's, which they inherit) yield to the photos' and PDFs' renderers.
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
                libreOffice = Result { () throws(ThumbnailError) in
                    if confinement.sandboxed {
                        try RendererConfinement.confineFiles(
                            forOfficeIn: office.workspace, required: office.filesConfinementRequired)
                    }
                    return try LibreOffice(programFolder: office.programFolder, workspace: office.workspace)
                }
            })
        else { return false }
        guard DescriptorWriter.writeAll(RendererGreeting.line, to: 1) else { return true }
        let input = JobReader(descriptor: 0, idleMilliseconds: 1000) { glance_return_freed_memory() }
        let decoder = JSONDecoder()
        let thumbnailer = Thumbnailer(office: try? libreOffice?.get())
        let officeFailure: ThumbnailError? = {
            if case .failure(let error) = libreOffice { return error }
            return nil
        }()
        var drawn = 0
        while let (line, file) = input.nextJob() {
            guard let job = try? decoder.decode(RenderJob.self, from: Data(line)) else { continue }
            var outcome: RenderOutcome
            if let officeFailure {
                outcome = Self.failure(officeFailure, of: job, type: nil, milliseconds: 0)
            } else if let file {
                outcome = handle(job, file: file, thumbnailer: thumbnailer, drawnBefore: drawn)
                drawn += 1
            } else {
                outcome = RenderOutcome(id: job.id, status: .failed, error: "no document came with the job")
            }
            outcome.workerCPUMilliseconds = RendererConfinement.cpuMillisecondsUsed()
            outcome.retire = outcome.retire ?? retirement(office: try? libreOffice?.get())
            guard Self.send(outcome) else { return true }
        }
        return true
    }

    /// Why this renderer should not take another document after the one it just drew, if it
    /// should not: LibreOffice took in the document's fonts, or the address space it has come to
    /// use (after returning what it freed) is past half of its limit.
    func retirement(office: LibreOffice?) -> RenderOutcome.Retirement? {
        if let office { return office.hasTakenInFonts ? .documentFonts : nil }
        // (LibreOffice's own address space is most of an office renderer's from its start: its
        // limit is set for it, and this rule is for the ordinary renderers' decoders.)
        let limit = confinement.memoryLimitBytes
        if limit > 0, let used = RendererConfinement.addressSpaceBytes(), used > limit / 2 {
            glance_return_freed_memory()
            if let after = RendererConfinement.addressSpaceBytes(), after > limit / 2 { return .addressSpace }
        }
        return nil
    }

    /// Renders one job, reading the document through `file`, into an outcome.
    /// With `pieces`, an encoded PNG's leading bytes go there while it is made (a test's
    /// collector); by default to standard output, the reply's pieces (``sendPiece(_:)``).
    func handle(
        _ job: RenderJob, file: OpenFile, thumbnailer: Thumbnailer, drawnBefore: Int = 0,
        pieces: EncodedBytesSink? = nil
    ) -> RenderOutcome {
        let name = job.name.split(separator: "/").last.map(String.init) ?? job.name
        if let early = actOnTriggers(job, name: name) { return early }
        if let pattern = triggers.wornOutOn, drawnBefore > 0, fnmatch(pattern, name, 0) == 0 {
            let error = ThumbnailError.libraryUnavailable(
                library: "poppler-glib", detail: "failed to map segment from shared object (--debug-worn-out-on)")
            return Self.failure(error, of: job, type: nil, milliseconds: 0)
        }
        let start = DispatchTime.now()
        if let pattern = triggers.slowOn, fnmatch(pattern, name, 0) == 0 { sleep(1) }
        func elapsed() -> Int { Int((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000) }
        var type: ContentType?
        do throws(ThumbnailError) {
            var request = RenderRequest(file: file, name: job.name, maxSide: job.maxSide, maxPixels: job.maxPixels)
            request.page = job.page
            request.readsPageSizes = job.readsPageSizes
            let (sniffed, text, read, listing, document) = try thumbnailer.sniff(file, named: job.name)
            type = sniffed
            try Self.checkFileSize(file, capabilities: thumbnailer.capabilities(of: sniffed), limit: job.maxFileBytes)
            request.file = document
            request.text = text
            request.listing = listing
            var outcome: RenderOutcome
            if thumbnailer.handsOn(sniffed) {
                outcome = try Self.triageOffice(job, request: request, type: sniffed, thumbnailer: thumbnailer)
            } else if job.textContent {
                outcome = try Self.textContent(of: job, file: document, type: sniffed)
            } else if job.pixelsOnly {
                let image = try thumbnailer.render(request, as: sniffed).image.withOpaqueAlpha()
                outcome = RenderOutcome(
                    id: job.id, status: .rendered, contentType: sniffed, warnings: [], format: nil,
                    width: image.width, height: image.height, data: image.bytes, digest: nil)
            } else {
                outcome = try Self.thumbnail(
                    of: job, request: request, type: sniffed, thumbnailer: thumbnailer, pieces: pieces)
                if let text {
                    let (lines, longer) = try TextContent.lineCount(
                        of: document, encoding: text.encoding, continuing: read)
                    outcome.details = DocumentDetails(
                        textEncoding: text.encoding, lineCount: lines, textIsLonger: longer)
                }
            }
            outcome.milliseconds = elapsed()
            return outcome
        } catch {
            return Self.failure(error, of: job, type: type, milliseconds: elapsed())
        }
    }

    /// What a debug trigger matching `name` makes of the job (a forged reply, a crash, a hang, an
    /// escape attempted); nil when none matches.
    private func actOnTriggers(_ job: RenderJob, name: String) -> RenderOutcome? {
        if let pattern = triggers.forgeReplyOn, fnmatch(pattern, name, 0) == 0 {
            var forged = RenderOutcome(id: job.id + 1000, status: .rendered, format: .png, width: 10, height: 10)
            forged.byteCount = -5
            return forged
        }
        if let pattern = triggers.crashOn, fnmatch(pattern, name, 0) == 0 {
            // The Swift runtime's crash handler would catch a raised SIGSEGV and carry on;
            // restore the default action so this dies the way a crash in a C library does.
            signal(SIGSEGV, SIG_DFL)
            raise(SIGSEGV)
        }
        if let pattern = triggers.hangOn, fnmatch(pattern, name, 0) == 0 {
            while true { sleep(3600) }
        }
        if let escape = attemptEscape(name) {
            return RenderOutcome(id: job.id, status: .failed, error: escape)
        }
        return nil
    }

    /// An office document in a renderer without LibreOffice: checked (``OfficePackage``: a
    /// package past its limits or a password ends here; what its entries inflate to is checked by
    /// the office renderer, on the copy LibreOffice reads), then, for its first page, drawn from
    /// the thumbnail it carries when that is at least the job's box; else handed on to the office
    /// lane when the pool has one; else drawn from the thumbnail it carries at its own size (with
    /// a warning); else unsupported.
    private static func triageOffice(
        _ job: RenderJob, request: RenderRequest, type: ContentType, thumbnailer: Thumbnailer
    ) throws(ThumbnailError) -> RenderOutcome {
        let package = try OfficePackage(file: request.file, type: type, inflating: false, listing: request.listing)
        // The carried thumbnail is the first page's; with an office lane, it is worth decoding
        // only for a box it may fill.
        let mayServe = !job.officeLane || job.maxSide <= OfficePackage.largestEmbeddedThumbnail
        var embedded: (outcome: RenderOutcome, longerSide: Int)?
        if let bytes = package.embeddedThumbnail, job.page == 1, !job.textContent, mayServe {
            embedded = try? Self.embeddedThumbnail(
                bytes, of: job, request: request, type: type, thumbnailer: thumbnailer)
        }
        if let embedded, embedded.longerSide >= job.maxSide { return embedded.outcome }
        if job.officeLane {
            var handOff = RenderOutcome(id: job.id, status: .unsupported, contentType: type)
            handOff.handOff = .office
            return handOff
        }
        if var outcome = embedded?.outcome {
            outcome.warnings.append(
                "drawn from the thumbnail the document carries: there is no LibreOffice renderer to draw its pages")
            return outcome
        }
        throw .unsupported(
            detail: "\(type.displayName) files are drawn by LibreOffice's renderers, and there are none here "
                + "(LibreOffice is not installed, or they were turned off)")
    }

    /// The thumbnail an office document carries, drawn by the image renderers as the job's
    /// thumbnail (never larger than it is), and its longer side.
    private static func embeddedThumbnail(
        _ bytes: [UInt8], of job: RenderJob, request: RenderRequest, type: ContentType, thumbnailer: Thumbnailer
    ) throws(ThumbnailError) -> (outcome: RenderOutcome, longerSide: Int) {
        let descriptor = bytes.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else { throw .unreadable(reason: "cannot hold the embedded thumbnail") }
        let file = OpenFile(adopting: descriptor)
        let imageType = try thumbnailer.pictureType(of: file, as: "the thumbnail the document carries")
        var embeddedRequest = request
        embeddedRequest.file = file
        embeddedRequest.name = "thumbnail"
        var embeddedJob = job
        embeddedJob.computeDigest = false
        var outcome = try thumbnail(
            of: embeddedJob, request: embeddedRequest, type: imageType, thumbnailer: thumbnailer)
        let longerSide = max(outcome.sourceWidth, outcome.sourceHeight)
        outcome.contentType = type
        outcome.digest = job.computeDigest ? ContentDigest.sha256(of: request.file) : nil
        return (outcome, longerSide)
    }

    /// A text document's content, decoded to UTF-8 (a `textContent` job: the preview page's text).
    private static func textContent(of job: RenderJob, file: OpenFile, type: ContentType)
        throws(ThumbnailError) -> RenderOutcome
    {
        guard type == .text else { throw ThumbnailError.unsupported(detail: "not a text document") }
        let content = try TextContent.read(file, named: job.name)
        var outcome = RenderOutcome(
            id: job.id, status: .rendered, contentType: type, warnings: [], format: nil, width: 0, height: 0,
            data: content.utf8, digest: nil)
        outcome.details = DocumentDetails(textEncoding: content.encoding)
        outcome.text = TextSummary(lineCount: content.lineCount, isComplete: content.isComplete)
        return outcome
    }

    /// The thumbnail, its smaller sizes, its renditions and its ThumbHash, encoded.
    ///
    /// Smaller sizes and renditions are made from the thumbnail's pixels: with them a PNG
    /// source is not encoded as it is made (without, it goes to the coordinator in pieces as
    /// it comes, so that the worker never holds the whole encoded image: `RendererReplyPiece`);
    /// a page is encoded straight from what it was drawn on either way (gray when all gray).
    /// A PNG whose pixels serve only the smaller sizes may still be encoded as it is made,
    /// the sizes halved from its rows on the way (RenderResult.encodedWithHalves).
    private static func thumbnail(
        of job: RenderJob, request: RenderRequest, type: ContentType, thumbnailer: Thumbnailer,
        pieces: EncodedBytesSink? = nil
    ) throws(ThumbnailError) -> RenderOutcome {
        let needsPixels = !job.renditions.isEmpty || !job.sizes.isEmpty
        let halvingsFor = job.renditions.isEmpty ? job.sizes : []
        let encoding = needsPixels && type == .png && halvingsFor.isEmpty ? nil : job.format ?? .png
        let rendered = try thumbnailer.render(
            request, as: type, encodingAs: encoding, keepingPixels: needsPixels, halvingsFor: halvingsFor,
            sendingLeadingBytesTo: pieces ?? { sendPiece($0) })
        var encoded: EncodedThumbnail
        let pixels: PixelBuffer?
        var renditions: [Rendition] = []
        var sizes: [Rendition] = []
        var thumbHash: String?
        let content = PNGContent(source: type)
        switch rendered {
        case .encoded(let streamed):
            (encoded, pixels) = (streamed, nil)
        case .encodedWithPixels(let page, let image):
            (encoded, pixels) = (page, image)
        case .encodedWithHalves(let streamed, let halves):
            (encoded, pixels) = (streamed, nil)
            sizes = try RenditionMaker.sizes(
                fromHalves: halves, of: streamed, fitting: job.sizes, as: streamed.format, content: content)
            if let smallest = halves.last { thumbHash = ThumbHashEncoder.hash(of: smallest) }
        case .pixels(let thumbnail):
            encoded = try encode(thumbnail, as: job.format, type: type)
            pixels = thumbnail.image
        }
        if let pixels {
            renditions = try RenditionMaker.renditions(of: pixels, fitting: job.renditions, content: content)
            let smaller = try RenditionMaker.sizes(
                of: pixels, fitting: job.sizes, as: encoded.format, content: content,
                thumbnailBytes: encoded.data.count + encoded.leadingByteCount)
            sizes = smaller.sizes
            if !job.sizes.isEmpty { thumbHash = ThumbHashEncoder.hash(of: smaller.smallest) }
        }
        // Not for videos and sound: their thumbnail reads a few megabytes wherever the frame or
        // the cover is, while a digest reads every byte (a 10-minute 1080p clip is over a GB: 2.5 s
        // here, seven times its thumbnail). Without a digest, a clip moved by copy and delete is
        // drawn again instead of followed (GenerationPlan), and its thumbnail's URLs are checked
        // (304) rather than kept for a year.
        let digest =
            job.computeDigest && !thumbnailer.capabilities(of: type).contains(.noDigest)
            ? ContentDigest.sha256(of: request.file) : nil
        var outcome = RenderOutcome(
            id: job.id, status: .rendered, contentType: type, warnings: encoded.warnings, format: encoded.format,
            width: encoded.width, height: encoded.height, data: encoded.data, digest: digest)
        outcome.byteCount += encoded.leadingByteCount
        outcome.sourceWidth = encoded.sourceWidth
        outcome.sourceHeight = encoded.sourceHeight
        outcome.averageColour = encoded.averageColour
        outcome.renditions = renditions
        outcome.sizes = sizes
        outcome.thumbHash = thumbHash
        outcome.colour = encoded.colour
        outcome.details = encoded.details
        return outcome
    }

    /// A thumbnail's pixels encoded as `format`, or as suits the source when the job names none.
    private static func encode(_ thumbnail: RenderedThumbnail, as format: ImageFormat?, type: ContentType)
        throws(ThumbnailError) -> EncodedThumbnail
    {
        let format =
            format ?? ImageFormat.automatic(for: type, image: thumbnail.image, lossySource: thumbnail.lossySource)
        var encoded = EncodedThumbnail(
            format: format,
            data: try ImageEncoder.encode(thumbnail.image, as: format, content: PNGContent(source: type)),
            width: thumbnail.image.width, height: thumbnail.image.height, averageColour: thumbnail.image.averageColour,
            sourceWidth: thumbnail.sourceWidth, sourceHeight: thumbnail.sourceHeight, warnings: thumbnail.warnings,
            colour: thumbnail.colour)
        encoded.details = thumbnail.details
        return encoded
    }

    /// The outcome of a job that failed with `error`: unsupported or failed, with the limit it hit.
    private static func failure(_ error: ThumbnailError, of job: RenderJob, type: ContentType?, milliseconds: Int)
        -> RenderOutcome
    {
        let status: RenderOutcome.Status
        switch error {
        case .unsupported, .noPicture: status = .unsupported
        default: status = .failed
        }
        var outcome = RenderOutcome(
            id: job.id, status: status, contentType: type, error: error.description, milliseconds: milliseconds)
        outcome.limit = error.limit
        // A library that would not load: a passing state of this renderer, which is replaced.
        if case .libraryUnavailable = error { outcome.retire = .libraryUnavailable }
        // A page the document does not have: the count, so that a caller can tell it apart.
        if case .pageOutOfRange(_, let count) = error { outcome.details = DocumentDetails(pageCount: count) }
        // A sound file without a cover: its length all the same.
        if case .noPicture(_, let details) = error { outcome.details = details }
        return outcome
    }

    /// Refuses a document larger than `limit` bytes, unless its family reads only what it needs
    /// (``FormatCapabilities/readsOnlyWhatItNeeds``: text, read from its start; videos and sound,
    /// read a few packets at a time wherever the frame or cover is; comic books, a page at a time).
    static func checkFileSize(_ file: OpenFile, capabilities: FormatCapabilities, limit: Int) throws(ThumbnailError) {
        guard !capabilities.contains(.readsOnlyWhatItNeeds), limit > 0 else { return }
        guard let size = file.status().map({ Int($0.st_size) }) else { return }
        if size > limit { throw .fileTooLarge(bytes: size, limitBytes: limit) }
    }

    /// The test hooks that act as a compromised renderer would. Inside the sandbox each is killed
    /// at its first forbidden call; outside it, each succeeds and says what it did.
    private func attemptEscape(_ name: String) -> String? {
        func matches(_ pattern: String?) -> Bool { pattern.map { fnmatch($0, name, 0) == 0 } ?? false }
        if matches(triggers.spinOn) {
            var counter: UInt64 = 0
            while true { counter &+= UInt64(DispatchTime.now().uptimeNanoseconds & 1) }
        }
        if matches(triggers.socketOn) {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { return "escape: socket failed (errno \(errno))" }
            close(socket)
            return "escape: opened a network socket"
        }
        if matches(triggers.writeOn) {
            let path = "/tmp/glance-escape-\(getpid())"
            let file = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard file >= 0 else { return "escape: creating \(path) failed (errno \(errno))" }
            close(file)
            unlink(path)
            return "escape: created and removed \(path)"
        }
        if matches(triggers.execOn) {
            let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("true"), nil]
            execv("/bin/true", arguments)
            return "escape: exec failed (errno \(errno))"
        }
        return nil
    }

    /// Writes one piece of an image's leading bytes to standard output, framed as
    /// ``RendererReplyPiece`` says, ahead of the reply that ends the image.
    static func sendPiece(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return true }
        return DescriptorWriter.writeAll(RendererReplyPiece.line(count: bytes.count), to: 1)
            && DescriptorWriter.writeAll(bytes, to: 1)
    }

    /// Writes the outcome's JSON line and its image bytes to standard output (with pieces sent
    /// before, the bytes after them).
    static func send(_ outcome: RenderOutcome) -> Bool {
        guard var header = try? JSONEncoder().encode(outcome).map({ $0 }) else { return false }
        header.append(0x0A)
        // Two writes rather than one joined buffer: no extra copy of the image.
        return DescriptorWriter.writeAll(header, to: 1) && DescriptorWriter.writeAll(outcome.data, to: 1)
            && (outcome.renditions + outcome.sizes).allSatisfy { DescriptorWriter.writeAll($0.data, to: 1) }
    }
}
