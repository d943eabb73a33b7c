/// A render job sent to a renderer process: one line of JSON on its standard input (a Unix
/// socket), sent together with the document's open descriptor (`SCM_RIGHTS`). The worker reads
/// that descriptor and never opens a document by name.
public struct RenderJob: Codable, Sendable, Equatable {
    /// Identifies the job's reply.
    public var id: Int
    /// The document's name (for what a name tells, such as `.txt`, and for the debug triggers).
    public var name: String
    public var maxSide: Int
    public var maxPixels: Int
    /// The largest image or PDF file read, in bytes (text is exempt: only its start is read).
    public var maxFileBytes: Int
    /// Whether the worker should also compute the content digest.
    public var computeDigest: Bool
    /// The encoding to produce; nil picks it from the content (``ImageFormat/automatic(for:image:)``).
    public var format: ImageFormat?
    /// The boxes of the extra renditions to make from the same pixels (RGBA PNG, see
    /// ``Rendition``), each at most `maxSide`; empty for none.
    public var renditions: [Int]
    /// The boxes of the smaller thumbnails to store (``ThumbnailSizes``), made from the same
    /// pixels and encoded as the main image is; empty for none.
    public var sizes: [Int] = []
    /// The page to draw, from 1 (a PDF's; every other document has page 1 only).
    public var page = 1
    /// Whether to read every page's size for the record (``DocumentDetails``); a preview of one
    /// page needs only the count, and a 10,000-page PDF's sizes take about 65 ms to read.
    public var readsPageSizes = true
    /// Instead of a picture, the content of a text document as UTF-8 (capped; see
    /// ``TextSummary``); any other document is answered `unsupported`.
    public var textContent = false
    /// Instead of an encoded image, the thumbnail's pixels: `width * height * 4` bytes of RGBA
    /// (straight alpha), for a caller that draws them itself (a terminal's picture) and so never
    /// decodes an image that came from a store or a renderer.
    public var pixelsOnly = false
    /// Whether the pool has an office lane (renderers with LibreOffice) to hand an office document
    /// on to. Without one, a renderer draws an office document from the thumbnail the document
    /// carries, when it has one, or answers `unsupported`. Set by the pool.
    public var officeLane = false

    public init(
        id: Int, name: String, maxSide: Int = ThumbnailLimits.defaultMaxSide,
        maxPixels: Int = ThumbnailLimits.defaultMaxPixels, maxFileBytes: Int = ThumbnailLimits.defaultMaxFileBytes,
        computeDigest: Bool = true, format: ImageFormat? = nil, renditions: [Int] = []
    ) {
        self.id = id
        self.name = name
        self.maxSide = maxSide
        self.maxPixels = maxPixels
        self.maxFileBytes = maxFileBytes
        self.computeDigest = computeDigest
        self.format = format
        self.renditions = renditions
    }
}

/// An extra encoding of a thumbnail, made in the worker from the thumbnail's own pixels (no
/// second decode of the document) to fit a `side`-pixel box: for the freedesktop.org thumbnail
/// cache an 8-bit, non-interlaced RGBA PNG; for the store's smaller sizes, the main image's format.
public struct Rendition: Codable, Sendable, Equatable {
    /// The box it fits (1024, 512, 256, 128 for the cache's sizes).
    public var side: Int
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var byteCount: Int
    /// The encoded image (not part of the JSON line: it follows the main image on the pipe).
    public var data: [UInt8] = []

    enum CodingKeys: String, CodingKey {
        case side, format, width, height, byteCount
    }

    /// Decodes a reply's rendition; one without a format (the desktop cache's, as earlier workers
    /// sent them) is a PNG.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        side = try container.decode(Int.self, forKey: .side)
        format = try container.decodeIfPresent(ImageFormat.self, forKey: .format) ?? .png
        width = try container.decode(Int.self, forKey: .width)
        height = try container.decode(Int.self, forKey: .height)
        byteCount = try container.decode(Int.self, forKey: .byteCount)
    }

    public init(side: Int, format: ImageFormat = .png, width: Int, height: Int, data: [UInt8]) {
        self.side = side
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = data.count
        self.data = data
    }
}

/// The line a worker writes once it has confined itself (limits, sandbox) and before it reads
/// its first job: proof that it started, inside its sandbox. Written before any document is
/// read, it says nothing a document could have made it say; a worker that dies without it died
/// starting (under bubblewrap with status 1: bubblewrap could not make the sandbox, see
/// `SandboxProbe`), never on a document.
public enum RendererGreeting {
    public static let line: [UInt8] = Array("glance-renderer ready\n".utf8)
}

/// A piece of an image's leading bytes, which a worker may send before the reply that ends the
/// image: a PNG encoded as it is made is sent as it comes, so that the worker never holds all of
/// it. On the pipe: a line `+COUNT` (COUNT in decimal, 1 to 9 digits, not starting with 0) and
/// COUNT bytes. The pieces before a reply, in order, are the first bytes of its image and count
/// in its `byteCount`; the bytes after its JSON line are the rest. A reply that is not `rendered`
/// drops them. The coordinator holds pieces to the same limit as whole images
/// (``RenderOutcome/maximumByteCount``).
public enum RendererReplyPiece {
    /// The byte a piece's line starts with (a reply's JSON line starts with `{`).
    public static let marker = UInt8(ascii: "+")
    /// The longest line a piece can start with: the marker, nine digits, the newline.
    public static let longestLine = 11

    /// The line that starts a piece of `count` bytes.
    public static func line(count: Int) -> [UInt8] { Array("+\(count)\n".utf8) }

    /// The count a piece's line says, from the bytes between the marker and the newline; nil
    /// unless they are 1 to 9 decimal digits, the first not 0.
    public static func count(digits: ArraySlice<UInt8>) -> Int? {
        guard (1...9).contains(digits.count), digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}

/// A worker's reply: one line of JSON, followed by `byteCount` bytes of encoded image (less those
/// sent ahead in pieces, see ``RendererReplyPiece``).
///
/// The coordinator does not trust it: a reply whose id is not the job's, whose byte count is
/// negative or beyond ``maximumByteCount``, or whose image size does not fit the job's box
/// fails the job and costs the worker (see `RendererProcess`).
public struct RenderOutcome: Codable, Sendable, Equatable {
    /// How the job ended.
    public enum Status: String, Codable, Sendable {
        case rendered
        case unsupported
        case failed
    }

    /// The largest encoded thumbnail a reply may carry: a 4096x4096 RGBA PNG that did not
    /// compress at all is 64 MiB; the rest is headroom.
    public static let maximumByteCount = 96 << 20

    public var id: Int
    public var status: Status
    public var contentType: ContentType?
    /// The reason, for `failed` and `unsupported`.
    public var error: String?
    /// The limit that refused the document, when one did (the coordinator names its setting).
    public var limit: RenderLimit?
    public var warnings: [String]
    public var format: ImageFormat?
    public var width: Int
    public var height: Int
    public var byteCount: Int
    public var digest: String?
    public var milliseconds: Int
    /// The source's displayed size (pixels, or points for PDF), when rendered.
    public var sourceWidth = 0
    public var sourceHeight = 0
    /// The thumbnail's average colour (`#rrggbb`), when rendered: its placeholder in pages.
    public var averageColour: String?
    /// The thumbnail's ThumbHash (base64), when rendered with the smaller sizes (``RenderJob/sizes``).
    public var thumbHash: String?
    /// What the render learned besides the thumbnail: a PDF's pages, a text's encoding.
    public var details: DocumentDetails?
    /// For a text-content job: how much of the text `data` holds.
    public var text: TextSummary?
    /// The renditions the job asked for, when rendered, in the job's order; their bytes follow
    /// the main image's on the pipe.
    public var renditions: [Rendition] = []
    /// The smaller thumbnails the job asked for (``RenderJob/sizes``), in its order; their bytes
    /// follow the renditions'.
    public var sizes: [Rendition] = []
    /// CPU time the renderer process has used so far, all jobs and threads together: the pool
    /// replaces a worker before its lifetime CPU limit could cut a document short.
    public var workerCPUMilliseconds: Int?
    /// The conversion to sRGB from the document's colour profile, when one was made.
    public var colour: ColourConversion?
    /// Set, with status `unsupported`, by a renderer that found an office document it does not
    /// draw itself and that passed its checks: the pool sends the job on to its office lane
    /// (``RenderJob/officeLane``), whose outcome is the job's.
    public var handOff: HandOff?
    /// Set by a renderer that is not fit for another document (``Retirement``): the pool
    /// replaces it after this reply, so that what one document left behind never meets the next.
    public var retire: Retirement?
    /// The encoded thumbnail (not part of the JSON line: it follows it on the pipe).
    public var data: [UInt8] = []

    enum CodingKeys: String, CodingKey {
        case id, status, contentType, error, limit, warnings, format, width, height, byteCount, digest, milliseconds
        case sourceWidth, sourceHeight, averageColour, thumbHash, renditions, sizes, workerCPUMilliseconds, colour
        case details, text, handOff, retire
    }

    /// Why a renderer must not take another document.
    public enum Retirement: String, Codable, Sendable {
        /// LibreOffice took in fonts the document embeds: they would stay installed in the
        /// process, under the names the document gave them, and draw the next documents.
        case documentFonts
        /// The renderer's address space has grown past half its limit over its documents (heap
        /// left fragmented, arenas of decoders' threads, libraries loaded on first use): the next
        /// document would meet a limit that is not its own.
        case addressSpace
        /// A library could not be loaded (``ThumbnailError/libraryUnavailable(library:detail:)``):
        /// the pool draws the document again in a fresh renderer, once.
        case libraryUnavailable
    }

    /// Where a renderer sends a job it does not draw itself.
    public enum HandOff: String, Codable, Sendable {
        /// To the office lane's renderers, which run LibreOffice.
        case office
    }

    /// Bytes that follow the JSON line: the main image's, every rendition's and every size's.
    public var trailingByteCount: Int {
        (renditions + sizes).reduce(byteCount) { $0 + $1.byteCount }
    }

    public init(
        id: Int, status: Status, contentType: ContentType? = nil, error: String? = nil, warnings: [String] = [],
        format: ImageFormat? = nil, width: Int = 0, height: Int = 0, data: [UInt8] = [], digest: String? = nil,
        milliseconds: Int = 0
    ) {
        self.id = id
        self.status = status
        self.contentType = contentType
        self.error = error
        self.warnings = warnings
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = data.count
        self.data = data
        self.digest = digest
        self.milliseconds = milliseconds
    }
}

/// Test hooks of a worker: make it crash, hang, dawdle, lie or try to escape its sandbox on
/// documents whose name matches a glob. Passed on its command line; never set in normal use.
public struct RendererDebugTriggers: Sendable, Equatable {
    public var crashOn: String?
    public var hangOn: String?
    /// Wait a second before reading the document (lets a test change it mid-render).
    public var slowOn: String?
    /// Answer with a forged reply (wrong id, impossible byte count), as a compromised worker might.
    public var forgeReplyOn: String?
    /// Burn CPU time without end (the CPU-time limit's test).
    public var spinOn: String?
    /// Fail to load a library for a matching document when this renderer has drawn one before,
    /// as a renderer whose address space filled over its documents did.
    public var wornOutOn: String?
    /// Do what a compromised renderer would: open a network socket, create a file, run a program.
    public var socketOn: String?
    public var writeOn: String?
    public var execOn: String?

    public init(
        crashOn: String? = nil, hangOn: String? = nil, slowOn: String? = nil, forgeReplyOn: String? = nil,
        spinOn: String? = nil, socketOn: String? = nil, writeOn: String? = nil, execOn: String? = nil
    ) {
        self.crashOn = crashOn
        self.hangOn = hangOn
        self.slowOn = slowOn
        self.forgeReplyOn = forgeReplyOn
        self.spinOn = spinOn
        self.socketOn = socketOn
        self.writeOn = writeOn
        self.execOn = execOn
    }

    /// The `glance-renderer` arguments that start a worker with these triggers.
    public var arguments: [String] {
        let named: [(String, String?)] = [
            ("--debug-crash-on", crashOn), ("--debug-hang-on", hangOn), ("--debug-slow-on", slowOn),
            ("--debug-forge-reply-on", forgeReplyOn), ("--debug-spin-on", spinOn), ("--debug-socket-on", socketOn),
            ("--debug-write-on", writeOn), ("--debug-exec-on", execOn), ("--debug-worn-out-on", wornOutOn),
        ]
        return named.flatMap { option, pattern in pattern.map { [option, $0] } ?? [] }
    }
}

/// How much of a text document a text-content job gave (``RenderJob/textContent``).
public struct TextSummary: Codable, Sendable, Equatable {
    /// How many lines the text holds.
    public var lineCount: Int
    /// False when the document goes on past what was read (the renderer's cap).
    public var isComplete: Bool

    public init(lineCount: Int, isComplete: Bool) {
        self.lineCount = lineCount
        self.isComplete = isComplete
    }
}
