internal import CGraphics
import GlanceCore

/// The render layer's front door: sniffs a document, picks its renderer, renders the thumbnail.
///
/// One renderer per content type, like Quick Look's generators: for a raster format, the one
/// ``RasterPipeline`` over the format's ``RasterDecoder``; for a page (PDF, text, SVG), its
/// ``PageRenderer``. Adding a raster format means adding a decoder and listing it in
/// ``init(colourTransforms:)``.
public struct Thumbnailer: Sendable {
    private let renderers: [ContentType: any DocumentRenderer]

    /// A thumbnailer with the built-in renderers (PDF, PNG, JPEG, text, WebP, GIF, TIFF, HEIC,
    /// AVIF, SVG, videos and sound files through FFmpeg, camera raw photos through LibRaw, EPUB
    /// books and comic books); the image renderers
    /// share `colourTransforms`, so a profile's transform is built once for every document.
    ///
    /// With `office` (an office renderer's LibreOffice), office documents are drawn too
    /// (``OfficeRenderer``); without, they are sniffed, checked and handed on (see
    /// ``drawsOffice``).
    public init(colourTransforms: ColourTransformCache = ColourTransformCache(), office: LibreOffice? = nil) {
        let colour = colourTransforms
        let officeRenderers: [any DocumentRenderer] =
            office.map { office in ContentType.allCases.filter(\.isOffice).map { OfficeRenderer($0, office: office) } }
            ?? []
        let images: [any DocumentRenderer] = [
            RasterPipeline(.png, decoder: PNGDecoder.self, colourTransforms: colour),
            RasterPipeline(.jpeg, decoder: JPEGDecoder.self, colourTransforms: colour),
            RasterPipeline(.webp, decoder: WebPDecoder.self, colourTransforms: colour),
            RasterPipeline(.gif, decoder: GIFDecoder.self, colourTransforms: colour),
            RasterPipeline(.tiff, decoder: TIFFDecoder.self, colourTransforms: colour),
            RasterPipeline(.heic, decoder: HEIFDecoder.self, colourTransforms: colour),
            RasterPipeline(.avif, decoder: HEIFDecoder.self, colourTransforms: colour),
        ]
        let pictures = EmbeddedPicture(
            renderers: Dictionary(images.map { ($0.contentType, $0) }, uniquingKeysWith: { first, _ in first }))
        let text = TextRenderer()
        let media: [any DocumentRenderer] = ContentType.allCases.filter(\.isMedia).map {
            RasterPipeline($0, decoder: MediaDecoder.self, colourTransforms: colour)
        }
        let raw: [any DocumentRenderer] = ContentType.allCases.filter(\.isCameraRaw).map {
            RasterPipeline($0, decoder: RawDecoder.self, colourTransforms: colour)
        }
        let books: [any DocumentRenderer] =
            [EPUBRenderer(pictures: pictures, text: text)]
            + ContentType.allCases.filter(\.isComicBook).map { ComicRenderer(contentType: $0, pictures: pictures) }
        self.init(renderers: [PDFRenderer(), text, SVGRenderer()] + images + media + raw + books + officeRenderers)
    }

    /// Whether office documents are drawn here (an office renderer's thumbnailer).
    public var drawsOffice: Bool { renderers[.wordDocument] != nil }

    /// A thumbnailer with the given renderers, one per content type.
    public init(renderers: [any DocumentRenderer]) {
        var table: [ContentType: any DocumentRenderer] = [:]
        for renderer in renderers { table[renderer.contentType] = renderer }
        self.renderers = table
    }

    /// The content type of the open `file` named `name`, by sniffing, for text its decoded start
    /// (to put in the ``RenderRequest``), and the bytes read to decide; throws for empty and
    /// unsupported files.
    public func sniff(_ file: OpenFile, named name: String) throws(ThumbnailError) -> (
        type: ContentType, text: DecodedText?, read: FilePrefix
    ) {
        let sniffed = try ContentSniffer.sniff(file: file, named: name)
        switch sniffed.result {
        case .supported(let type) where renderers[type] != nil || type.isOffice:
            return (type, sniffed.text, sniffed.read)
        case .supported(let type): throw .unsupported(detail: "no renderer for \(type.displayName)")
        case .empty: throw .empty
        case .unsupported(let detail): throw .unsupported(detail: detail)
        }
    }

    /// Renders a document whose type is already known, encoding the thumbnail as `format` while
    /// it is made where the renderer can (rows that stream, opaque, upright and not gray under a
    /// profile, into a PNG thumbnail: see ``RasterPipeline``), so that it never exists whole, and a drawn page (PDF,
    /// text) into a PNG thumbnail straight from cairo's surface; otherwise, and when
    /// `format` is nil (the caller needs the pixels), gives the pixels, as ``render(_:as:)``.
    ///
    /// With `sink`, a PNG encoded row by row gives its leading bytes to it while it is made (see
    /// ``EncodedThumbnail/leadingByteCount``), so that not even the encoded image exists whole:
    /// a worker sends them on to the coordinator as they come.
    ///
    /// With `keepingPixels` the caller needs the pixels too (for smaller sizes): a PNG is then not
    /// encoded as it is made, and a page comes as ``RenderResult/encodedWithPixels(_:_:)``. When
    /// the pixels are needed only for `halvingsFor` sizes that are halvings of the box (512 and
    /// 256 of a 1024), a PNG that fills the box is still encoded as it is made, and gives those
    /// sizes' pixels as ``RenderResult/encodedWithHalves(_:_:)``: its worker's memory stays
    /// flat however tall the image (measured: 18 MB for a 4000x1000 and for a 4000x4000 PNG, where
    /// keeping the 1024's pixels took 26 MB for the second).
    public func render(
        _ request: RenderRequest, as type: ContentType, encodingAs format: ImageFormat?,
        keepingPixels: Bool = false, halvingsFor sizes: [Int] = [],
        sendingLeadingBytesTo sink: EncodedBytesSink? = nil
    ) throws(ThumbnailError) -> RenderResult {
        try Self.checkPage(request, of: type)
        if format == .png, let raster = renderers[type] as? any RowStreamingRenderer {
            if !keepingPixels {
                return try raster.render(request, streamingAs: PNGContent(source: type), sink: sink, halvings: 0)
            }
            if let count = Self.halvings(for: sizes, box: request.maxSide) {
                return try raster.render(
                    request, streamingAs: PNGContent(source: type), sink: sink, halvings: count)
            }
        }
        if format == .png, let pages = renderers[type] as? any PageRenderer {
            let page = try pages.drawPage(request)
            let encoded = try page.encoded(content: PNGContent(source: type))
            return keepingPixels ? .encodedWithPixels(encoded, page.pixels) : .encoded(encoded)
        }
        return .pixels(try render(request, as: type))
    }

    /// Renders a document whose type is already known (sniffed by ``sniff(_:named:)``).
    public func render(_ request: RenderRequest, as type: ContentType) throws(ThumbnailError) -> RenderedThumbnail {
        guard let renderer = renderers[type] else { throw .unsupported(detail: "no renderer for \(type.displayName)") }
        try Self.checkPage(request, of: type)
        return try renderer.render(request)
    }

    /// How many halvings of `box` make every one of `sizes` (2 for 512 and 256 of 1024); nil
    /// when there are none or one is not a halving.
    static func halvings(for sizes: [Int], box: Int) -> Int? {
        guard !sizes.isEmpty else { return nil }
        var deepest = 0
        for side in sizes {
            var (length, count) = (box, 0)
            while length > side && length % 2 == 0 {
                length /= 2
                count += 1
            }
            guard length == side, count > 0 else { return nil }
            deepest = max(deepest, count)
        }
        return deepest
    }

    /// Refuses a page other than the first of a document that has one page (all but PDFs, TIFFs
    /// and videos, whose strip of frames is their pages; their renderers check against their own
    /// count; and office documents, drawn by LibreOffice, and comic books, whose renderers do the
    /// same).
    static func checkPage(_ request: RenderRequest, of type: ContentType) throws(ThumbnailError) {
        guard type != .pdf && type != .tiff && !type.isMedia && !type.isOffice && !type.isComicBook else { return }
        if request.page != 1 { throw .pageOutOfRange(page: request.page, pageCount: 1) }
    }
}

extension Thumbnailer {
    /// Does once, now, what the text renderer otherwise does on first use and what a sandboxed
    /// process may no longer do: fontconfig reads its configuration and font caches, and writes
    /// the cache of a font folder that has none. A worker calls this before it confines itself.
    /// (Only this: laying out a line of text as well would start pango's font thread and map
    /// fonts, 160 MB of address space that the worker's memory limit would count.)
    public static func warmUp() {
        _ = FcInit()
    }
}
