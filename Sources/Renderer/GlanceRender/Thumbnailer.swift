internal import CGraphics
import GlanceCore

/// The render layer's front door: sniffs a document, picks its renderer, renders the thumbnail.
///
/// Built from format families (``FormatFamily``), each described once in its folder: one
/// renderer per content type, like Quick Look's generators (for a raster format, the one
/// ``RasterPipeline`` over the format's ``RasterDecoder``; for a page, its ``PageRenderer``).
/// The sniffing order, the pictures that may sit inside other files and what each type can do
/// are all derived from the families. A new family is its folder and a line in ``FormatFamily/builtIn``.
public struct Thumbnailer: Sendable {
    private let renderers: [ContentType: any DocumentRenderer]
    private let families: [ContentType: FormatFamily]
    private let sniffer: ContentSniffer
    /// The kinds a picture inside a document may be.
    private let pictures: EmbeddedPicture
    /// Whether office documents are drawn here (an office renderer's thumbnailer).
    public let drawsOffice: Bool

    /// A thumbnailer with `families` (the built-in ones: PDF, PNG, JPEG, text, WebP, GIF, TIFF,
    /// HEIC, AVIF, SVG, videos and sound files through FFmpeg, camera raw photos through LibRaw,
    /// EPUB books and comic books); the image renderers share `colourTransforms`, so a profile's
    /// transform is built once for every document.
    ///
    /// With `office` (an office renderer's LibreOffice), office documents are drawn too
    /// (``OfficeRenderer``); without, they are sniffed, checked and handed on (see
    /// ``handsOn(_:)``).
    public init(
        colourTransforms: ColourTransformCache = ColourTransformCache(), office: LibreOffice? = nil,
        families: [FormatFamily] = FormatFamily.builtIn
    ) {
        var tools = RendererTools(
            colourTransforms: colourTransforms, pictures: EmbeddedPicture(families: []), text: TextRenderer(),
            office: office)
        var renderers: [ContentType: any DocumentRenderer] = [:]
        var byType: [ContentType: FormatFamily] = [:]
        // A type's first family draws it.
        func add(_ family: FormatFamily) {
            for type in family.contentTypes where byType[type] == nil {
                byType[type] = family
                renderers[type] = family.makeRenderer(type, tools)
            }
        }
        // The pictures that may sit inside other files first: the others' renderers draw them.
        let embeddable = families.filter { $0.capabilities.contains(.embeddable) }
        embeddable.forEach(add)
        tools.pictures = EmbeddedPicture(families: embeddable, renderers: renderers)
        families.filter { !$0.capabilities.contains(.embeddable) }.forEach(add)
        self.renderers = renderers
        self.families = byType
        self.sniffer = ContentSniffer(families: families)
        self.pictures = tools.pictures
        self.drawsOffice = office != nil
    }

    /// What `type`'s family can do; nothing for a type no family here draws.
    public func capabilities(of type: ContentType) -> FormatCapabilities {
        families[type]?.capabilities ?? []
    }

    /// Whether `type` is drawn by another pool of renderers than this thumbnailer's: an office
    /// document in an ordinary renderer, checked here and handed on.
    public func handsOn(_ type: ContentType) -> Bool {
        renderers[type] == nil && families[type]?.pool == .office
    }

    /// The content type of the open `file` named `name`, by sniffing, for text its decoded start
    /// and for an archive its listing (both to put in the ``RenderRequest``), the bytes read to
    /// decide, and the file to draw and read (`file`, or a compressed text's decompressed start);
    /// throws for empty and unsupported files.
    public func sniff(_ file: OpenFile, named name: String) throws(ThumbnailError) -> (
        type: ContentType, text: DecodedText?, read: FilePrefix, listing: ArchiveListing?, document: OpenFile
    ) {
        let sniffed = try sniffer.sniff(file: file, named: name)
        switch sniffed.result {
        case .supported(let type) where renderers[type] != nil || handsOn(type):
            return (
                type, sniffed.text, sniffed.read, sniffed.listing.map(ArchiveListing.init), sniffed.document ?? file
            )
        case .supported(let type): throw .unsupported(detail: "no renderer for \(type.displayName)")
        case .empty: throw .empty
        case .unsupported(let detail): throw .unsupported(detail: detail)
        }
    }

    /// The kind of the picture open at `file` inside a document (an office document's carried
    /// thumbnail), sniffed by its bytes among the kinds a picture inside a file may be
    /// (``EmbeddedPicture``); `what` names it in messages.
    public func pictureType(of file: OpenFile, as what: String) throws(ThumbnailError) -> ContentType {
        try pictures.type(of: file, as: what)
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
    /// encoded as it is made, and a page comes as ``RenderResult/encodedWithPixels(_:_:)``, or,
    /// when it fills the box and `halvingsFor` are halvings of it, as
    /// ``RenderResult/encodedWithHalves(_:_:)`` made from what it was drawn on. When
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
        try checkPage(request, of: type)
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
            guard keepingPixels else { return .encoded(encoded) }
            if let count = Self.halvings(for: sizes, box: request.maxSide),
                max(page.width, page.height) == request.maxSide
            {
                return .encodedWithHalves(encoded, page.halves(count))
            }
            return .encodedWithPixels(encoded, page.pixels)
        }
        return .pixels(try render(request, as: type))
    }

    /// Renders a document whose type is already known (sniffed by ``sniff(_:named:)``).
    public func render(_ request: RenderRequest, as type: ContentType) throws(ThumbnailError) -> RenderedThumbnail {
        guard let renderer = renderers[type] else { throw .unsupported(detail: "no renderer for \(type.displayName)") }
        try checkPage(request, of: type)
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

    /// Refuses a page other than the first of a document whose family has one page; a family
    /// with pages (``FormatCapabilities/pages``) checks against its own count.
    func checkPage(_ request: RenderRequest, of type: ContentType) throws(ThumbnailError) {
        guard !capabilities(of: type).contains(.pages) else { return }
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

extension FormatFamily {
    /// The built-in families, one line each, in no particular order (their sniff rules carry
    /// their order).
    public static let builtIn: [FormatFamily] = [
        .png, .jpeg, .webp, .gif, .tiff, .heif,
        .pdf, .svg, .text,
        .media,
        .cameraRaw,
        .office,
        .epub, .comics,
        .bitmaps, .targa, .netpbm, .icons, .appleIcons, .qoi, .pcx, .dcx, .sgi, .sunRaster, .xWindowDumps,
        .directDrawSurfaces,
        .fits,
        .wirelessBitmaps,
        .radiance, .openEXR,
        .xPixmaps, .xBitmaps,
        .paintings, .gimp, .iWork, .blender, .mobi,
        .jpegXL, .photoshop, .postScript, .djvu, .xps, .fonts, .metafiles, .sketchUp, .affinity, .sketch, .procreate,
        .figma,
        .inDesign, .jpeg2000,
    ]
}
