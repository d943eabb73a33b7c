import GlanceCore

/// Makes a thumbnail's extra renditions (``Rendition``) from its own pixels: each an 8-bit,
/// non-interlaced RGBA PNG that fits a smaller box, as the freedesktop.org cache stores them.
///
/// Every rendition is scaled from the thumbnail itself (the same Lanczos scaler as the render),
/// never from the document again: one decode, every size.
public enum RenditionMaker {
    /// The renditions of `image` that fit each of `sides`, in that order, compressed as suits
    /// `content`. A side larger than the image keeps the image's size (never enlarged).
    public static func renditions(of image: PixelBuffer, fitting sides: [Int], content: PNGContent)
        throws(ThumbnailError) -> [Rendition]
    {
        guard !sides.isEmpty else { return [] }
        let rgba = image.withOpaqueAlpha()
        var made: [Rendition] = []
        for side in sides {
            let scaled = try fit(rgba, into: side)
            let data = try ImageEncoder.encodePNG(scaled, content: content)
            made.append(Rendition(side: side, width: scaled.width, height: scaled.height, data: data))
        }
        return made
    }

    /// The store's smaller thumbnails of `image` (``ThumbnailSizes``): one for each of `sides`,
    /// in that order, each encoded as ``SizeEncoding`` chooses for the thumbnail's `format` and
    /// the ``PictureKind`` of the largest of them.
    ///
    /// Each is scaled from the next larger one when that one is at least twice its size (512 from
    /// the 1024, 256 from the 512: a quarter of the pixels to read), else from `image`.
    /// Also gives the smallest as pixels (`image` itself when there are none), for the ThumbHash:
    /// fitting a 256 into 100x100 reads a sixteenth of the pixels the 1024 would.
    ///
    /// A side whose box the thumbnail fits as it is gets nothing: it would be the same image
    /// again (``ThumbnailSizes/standardServes(side:width:height:)``; readers take the thumbnail).
    ///
    /// `thumbnailBytes` is the thumbnail's encoded size: no size is kept larger than the image
    /// it stands in for (``encoded(_:side:as:thumbnailFormat:within:content:)``).
    public static func sizes(
        of image: PixelBuffer, fitting sides: [Int], as format: ImageFormat, content: PNGContent,
        thumbnailBytes: Int = .max
    ) throws(ThumbnailError) -> (sizes: [Rendition], smallest: PixelBuffer) {
        let sides = sides.filter { !ThumbnailSizes.standardServes(side: $0, width: image.width, height: image.height) }
        var made: [Rendition] = []
        var source = image
        var kind: PictureKind?
        var largerBytes = thumbnailBytes
        for side in sides.sorted(by: >) {
            if max(source.width, source.height) < 2 * side { source = image }
            let scaled = try fit(source, into: side)
            if kind == nil && format != .jpeg { kind = PictureKind(of: scaled) }
            let encoding = SizeEncoding(side: side, thumbnailFormat: format, kind: kind)
            let size = try encoded(
                scaled, side: side, as: encoding, thumbnailFormat: format, within: largerBytes, content: content)
            made.append(size)
            largerBytes = size.data.count
            source = scaled
        }
        return (inOrder(made, of: sides), source)
    }

    /// The store's smaller thumbnails from the halves a streamed PNG made of its thumbnail
    /// (``HalvingChain``): for each of `sides`, in that order, the half whose longest side it is,
    /// encoded as ``sizes(of:fitting:as:content:)`` encodes it (and, as there, none for a side
    /// the thumbnail fits as it is).
    public static func sizes(
        fromHalves halves: [PixelBuffer], of thumbnail: EncodedThumbnail, fitting sides: [Int], as format: ImageFormat,
        content: PNGContent
    ) throws(ThumbnailError) -> [Rendition] {
        let sides = sides.filter {
            !ThumbnailSizes.standardServes(side: $0, width: thumbnail.width, height: thumbnail.height)
        }
        var made: [Rendition] = []
        let largest = halves.first { half in sides.contains(max(half.width, half.height)) }
        let kind = format == .jpeg ? nil : largest.map(PictureKind.init(of:))
        var largerBytes = thumbnail.data.count + thumbnail.leadingByteCount
        for side in sides.sorted(by: >) {
            guard let half = halves.first(where: { max($0.width, $0.height) == side }) else {
                throw .writeFailed(
                    path: "the \(side)x\(side) size",
                    reason: "no half of the \(thumbnail.width)x\(thumbnail.height) thumbnail fits it")
            }
            let encoding = SizeEncoding(side: side, thumbnailFormat: format, kind: kind)
            let size = try encoded(
                half, side: side, as: encoding, thumbnailFormat: format, within: largerBytes, content: content)
            made.append(size)
            largerBytes = size.data.count
        }
        return inOrder(made, of: sides)
    }

    /// `made` (made largest first) in the order of `sides`, the job's (a side given twice: where
    /// it is first).
    private static func inOrder(_ made: [Rendition], of sides: [Int]) -> [Rendition] {
        let order = Dictionary(sides.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return made.sorted { order[$0.side, default: 0] < order[$1.side, default: 0] }
    }

    /// One smaller size of `image` encoded as `encoding` says, or as the thumbnail is (`format`)
    /// when that is not smaller than `bytes`, the encoded size of the next larger image (the
    /// thumbnail, or the larger size): a tile stands in for that image on a screen of fewer
    /// pixels, and must not cost more to fetch. Of the two, the smaller is kept.
    ///
    /// The thumbnail's own encoding of a quarter of its pixels is smaller than the thumbnail but
    /// for a picture of a few hundred bytes, whose headers weigh more than its pixels. On the bench
    /// corpus's 62 documents and the 90 of TestAssets that a grid shows (304 sizes), the kind's
    /// encoding was smaller every time: the rule is a bound, not a path taken.
    private static func encoded(
        _ image: PixelBuffer, side: Int, as encoding: SizeEncoding, thumbnailFormat format: ImageFormat,
        within bytes: Int, content: PNGContent
    ) throws(ThumbnailError) -> Rendition {
        let size = try encoded(image, side: side, as: encoding, content: content)
        guard size.data.count >= bytes, size.format != format else { return size }
        let again = try ImageEncoder.encode(image, as: format, content: content)
        guard again.count < size.data.count else { return size }
        return Rendition(side: size.side, format: format, width: size.width, height: size.height, data: again)
    }

    /// One smaller size encoded as `encoding` says.
    private static func encoded(_ image: PixelBuffer, side: Int, as encoding: SizeEncoding, content: PNGContent)
        throws(ThumbnailError) -> Rendition
    {
        let data: [UInt8]
        switch encoding {
        case .lossyWebP: data = try ImageEncoder.encodeLossyWebP(image)
        case .sixteenGrays(let otherwise):
            // A picture measured gray on its sampled rows whose other rows hold colour: as if sharp.
            guard let gray = try ImageEncoder.encodeInSixteenGrays(image) else {
                return try encoded(image, side: side, as: otherwise, content: content)
            }
            data = gray
        default: data = try ImageEncoder.encode(image, as: encoding.format, content: content)
        }
        return Rendition(side: side, format: encoding.format, width: image.width, height: image.height, data: data)
    }

    /// `image` scaled to fit a `side`-pixel box (or as it is when it fits already): halved
    /// (``PixelBuffer/halved()``) when the box is exactly half the image's longest side, else
    /// through the Lanczos scaler.
    static func fit(_ image: PixelBuffer, into side: Int) throws(ThumbnailError) -> PixelBuffer {
        let target = ThumbnailGeometry.fit(width: image.width, height: image.height, maxSide: side)
        guard target.width < image.width || target.height < image.height else { return image }
        if target.width == (image.width + 1) / 2 && target.height == (image.height + 1) / 2 {
            return image.halved()
        }
        // The Lanczos scaler takes RGB or RGBA.
        let image = image.channels == 1 ? image.droppingAlpha() : image
        let scaler = try Downscaler(
            sourceWidth: image.width, sourceHeight: image.height, channels: image.channels,
            targetWidth: target.width, targetHeight: target.height)
        return try scaler.scale { scaler throws(ThumbnailError) in
            image.bytes.withUnsafeBufferPointer { pixels in
                scaler.push(rows: pixels.baseAddress!, stride: image.rowBytes, count: image.height)
            }
        }
    }
}
