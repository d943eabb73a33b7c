import GlanceCore

/// The one path every raster format's thumbnail takes, as libvips' thumbnail operation is one
/// over all its loaders: the fit of the displayed size into the box, the decoder's plan held to
/// the pixel limit, the rows through the Lanczos downscaler, alpha dropped where it is opaque,
/// the colour brought into sRGB from the header's profile, and the orientation applied to the
/// small result. A format supplies only its ``RasterDecoder``.
struct RasterPipeline<Decoder: RasterDecoder>: DocumentRenderer {
    let contentType: ContentType
    private let colour: SRGBConversion

    /// The pipeline for `contentType`'s documents, decoded by `Decoder`, whose colour transforms
    /// are kept in `colourTransforms`.
    init(_ contentType: ContentType, decoder: Decoder.Type, colourTransforms: ColourTransformCache) {
        self.contentType = contentType
        colour = SRGBConversion(transforms: colourTransforms)
    }

    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        guard case .pixels(let thumbnail) = try render(request, streamingAs: nil) else {
            preconditionFailure("asked for pixels")
        }
        return thumbnail
    }

    /// Renders the thumbnail; with `content`, rows of a lossless source that stream
    /// (``RasterRows/streamed``), opaque RGB, upright, and not gray under a profile (whose conversion may or may not leave them
    /// gray) are encoded as PNG as the scaler makes them, converted to sRGB on the way, so that
    /// the thumbnail never exists whole. Images with alpha are not: whether they are opaque after
    /// all (and lose the channel) is known only at the end.
    /// With `sink` as well, the encoded PNG's leading bytes go to it as they are made; with
    /// `halvings`, the halves of the thumbnail are made from its rows too (``HalvingChain``).
    func render(
        _ request: RenderRequest, streamingAs content: PNGContent?, sink: EncodedBytesSink? = nil, halvings: Int = 0
    ) throws(ThumbnailError) -> RenderResult {
        let decoder = try Decoder(request, type: contentType, colourTransforms: colour.transforms)
        let header = decoder.header
        guard header.size.width > 0, header.size.height > 0 else {
            throw .corrupt(format: contentType.displayName, detail: "the image has no size")
        }
        let fitted = ThumbnailGeometry.fit(
            storedWidth: header.size.width, storedHeight: header.size.height, turnedBy: header.orientation,
            maxSide: request.maxSide)
        let displayed = PixelSize(fitted.displayed)
        let plan = decoder.plan(for: PixelSize(fitted.stored))
        if plan.limitedPixels > request.maxPixels {
            throw .tooLarge(
                width: header.size.width, height: header.size.height, limitPixels: request.maxPixels,
                shrunkBy: plan.shrink)
        }
        let rows = try decoder.start(plan)
        let target = Self.target(for: rows.size, planned: plan.size, fitted: PixelSize(fitted.stored), request: request)
        let scaler = try Downscaler(
            sourceWidth: rows.size.width, sourceHeight: rows.size.height, channels: rows.channels,
            targetWidth: target.width, targetHeight: target.height)

        // Halvings of the thumbnail are the store's smaller sizes only when it fills the box.
        let halvable = halvings == 0 || max(scaler.targetWidth, scaler.targetHeight) == request.maxSide
        // A lossy source's thumbnail is a JPEG (``ImageFormat/automatic(for:image:lossySource:)``):
        // its pixels go back, for the caller to encode as it asked.
        if let content, !header.isLossy, rows.channels == 3, rows.streamed, header.orientation == .up,
            !(header.isGray && header.profile != nil), decoder.conversionDone == nil, halvable
        {
            return try encodeWhileScaling(
                decoder, through: scaler, content: content, displayed: displayed, sink: sink, halvings: halvings)
        }

        var image = try scaler.scale { scaler throws(ThumbnailError) in try decoder.read(into: scaler) }
        // A transparent colour that never occurs (a PNG's tRNS, a GIF's) leaves an opaque image.
        if image.hasAlpha && image.isOpaque { image = image.droppingAlpha() }
        var warnings = decoder.warnings
        let conversion =
            decoder.conversionDone
            ?? colour.convert(&image, from: header.profile, sourceIsGray: header.isGray, warnings: &warnings)
        if header.orientation != .up { image = header.orientation.apply(to: image) }
        var rendered = RenderedThumbnail(
            image: image, sourceWidth: displayed.width, sourceHeight: displayed.height, warnings: warnings,
            colour: conversion)
        rendered.lossySource = header.isLossy
        // Read after decoding: a video's decoded frame tells what its container did not.
        rendered.details = decoder.header.details
        return .pixels(rendered)
    }

    /// The thumbnail's size for rows of `size`: the fit of the stored size, unless the decoder
    /// gives rows of another size than it planned (the data said otherwise: the fit of what there
    /// is) or planned rows a pixel short of it (an embedded thumbnail rounded down: its own size,
    /// never enlarged).
    static func target(for size: PixelSize, planned: PixelSize, fitted: PixelSize, request: RenderRequest)
        -> PixelSize
    {
        if size != planned {
            return PixelSize(ThumbnailGeometry.fit(width: size.width, height: size.height, maxSide: request.maxSide))
        }
        if !size.covers(fitted) {
            return PixelSize(
                ThumbnailGeometry.fit(
                    width: size.width, height: size.height, maxSide: max(fitted.width, fitted.height)))
        }
        return fitted
    }

    /// The thumbnail encoded as PNG row by row as `scaler` makes the rows (see
    /// ``render(_:streamingAs:sink:halvings:)``).
    private func encodeWhileScaling(
        _ decoder: Decoder, through scaler: Downscaler, content: PNGContent, displayed: PixelSize,
        sink: EncodedBytesSink?, halvings: Int
    ) throws(ThumbnailError) -> RenderResult {
        let header = decoder.header
        let channels = scaler.channels
        var average = AverageColour(channels: channels)
        let (width, height) = (scaler.targetWidth, scaler.targetHeight)
        let chain = halvings > 0 ? HalvingChain(width: width, height: height, channels: channels, count: halvings) : nil
        var encoded: Result<[UInt8], ThumbnailError> = .failure(.outOfMemory(detail: "not encoded"))
        var leadingByteCount = 0
        let countingSink: EncodedBytesSink? = sink.map { sink in
            { bytes in
                leadingByteCount += bytes.count
                return sink(bytes)
            }
        }
        var warnings: [String] = []
        let conversion = colour.withRowConverter(
            from: header.profile, sourceIsGray: header.isGray, channels: channels, warnings: &warnings
        ) { transform in
            encoded = Result { () throws(ThumbnailError) in
                try ImageEncoder.encodePNG(
                    width: width, height: height, channels: channels, content: content, sink: countingSink
                ) { write throws(ThumbnailError) in
                    try scaler.stream(rowsTo: { row, y in
                        transform?.apply(
                            input: row, inputStride: width * channels, output: row, outputStride: width * channels,
                            width: width, rows: 1)
                        average.add(row: row, width: width, y: y)
                        chain?.add(row: row)
                        write(row)
                    }) { scaler throws(ThumbnailError) in try decoder.read(into: scaler) }
                }
            }
        }
        var thumbnail = EncodedThumbnail(
            format: .png, data: try encoded.get(), width: width, height: height, averageColour: average.text,
            sourceWidth: displayed.width, sourceHeight: displayed.height, warnings: decoder.warnings + warnings,
            colour: conversion)
        thumbnail.leadingByteCount = leadingByteCount
        thumbnail.details = decoder.header.details
        if let chain { return .encodedWithHalves(thumbnail, chain.finish()) }
        return .encoded(thumbnail)
    }
}

/// A raster pipeline whose decoder's type is not known to the caller: what ``Thumbnailer``
/// asks for when it can take a thumbnail encoded while it is made.
protocol RowStreamingRenderer: DocumentRenderer {
    func render(_ request: RenderRequest, streamingAs content: PNGContent?, sink: EncodedBytesSink?, halvings: Int)
        throws(ThumbnailError) -> RenderResult
}

extension RasterPipeline: RowStreamingRenderer {}
