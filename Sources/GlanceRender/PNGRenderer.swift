import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Renders PNG images of every colour type and bit depth, and brings the thumbnail into sRGB
/// from the image's iCCP profile, or its gAMA and cHRM chunks when it has none.
///
/// Non-interlaced images are streamed row by row into the downscaler, so memory does not grow
/// with the image's height. Interlaced (Adam7) images cannot be streamed: their last pass fills
/// every other row of the whole image, so they are decoded whole (and are held to the pixel limit).
public struct PNGRenderer: DocumentRenderer {
    public var contentType: ContentType { .png }

    private let colour: SRGBConversion

    /// A renderer that keeps its colour transforms in `colourTransforms`.
    public init(colourTransforms: ColourTransformCache = ColourTransformCache()) {
        colour = SRGBConversion(transforms: colourTransforms)
    }

    /// Rows read per call into libpng.
    private static let rowsPerBatch = 16

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        guard case .pixels(let thumbnail) = try render(request, streamingAs: nil) else {
            preconditionFailure("asked for pixels")
        }
        return thumbnail
    }

    /// Renders the thumbnail; with `content`, an opaque, non-interlaced image is encoded as PNG
    /// row by row as the scaler makes the rows (converted to sRGB on the way), so that the
    /// thumbnail never exists whole. Images with alpha are not: whether they are opaque after
    /// all (and lose the channel) is known only at the end; nor are gray images with a profile,
    /// whose conversion may or may not leave them gray.
    /// With `sink` as well, the encoded PNG's leading bytes go to it as they are made.
    func render(
        _ request: RenderRequest, streamingAs content: PNGContent?, sink: EncodedBytesSink? = nil, halvings: Int = 0
    ) throws(ThumbnailError) -> RenderResult {
        let decoder: PNGDecoder
        do { decoder = try PNGDecoder(file: request.file) } catch { throw Self.map(error) }
        let header = decoder.header
        if header.width * header.height > request.maxPixels {
            throw .tooLarge(width: header.width, height: header.height, limitPixels: request.maxPixels)
        }
        let channels: Int
        do { channels = try decoder.start() } catch { throw Self.map(error) }
        let target = ThumbnailGeometry.fit(width: header.width, height: header.height, maxSide: request.maxSide)
        let scaler = try Downscaler(
            sourceWidth: header.width, sourceHeight: header.height, channels: channels,
            targetWidth: target.width, targetHeight: target.height)
        let stride = header.width * channels
        var warnings: [String] = []
        let profile = Self.colourProfile(decoder.colourChunks, gray: header.isGray, warnings: &warnings)

        // Halvings of the thumbnail are the store's smaller sizes only when it fills the box.
        let halvable = halvings == 0 || max(scaler.targetWidth, scaler.targetHeight) == request.maxSide
        if let content, channels == 3, !header.isInterlaced, !(header.isGray && profile != nil), halvable {
            var average = AverageColour(channels: channels)
            let width = scaler.targetWidth
            let chain =
                halvings > 0
                ? HalvingChain(width: width, height: scaler.targetHeight, channels: channels, count: halvings) : nil
            var encoded: Result<[UInt8], ThumbnailError> = .failure(.outOfMemory(detail: "not encoded"))
            var leadingByteCount = 0
            let countingSink: EncodedBytesSink? = sink.map { sink in
                { bytes in
                    leadingByteCount += bytes.count
                    return sink(bytes)
                }
            }
            let conversion = colour.withRowConverter(
                from: profile, sourceIsGray: header.isGray, channels: channels, warnings: &warnings
            ) { transform in
                encoded = Result { () throws(ThumbnailError) in
                    try ImageEncoder.encodePNG(
                        width: width, height: scaler.targetHeight, channels: channels, content: content,
                        sink: countingSink
                    ) { write throws(ThumbnailError) in
                        try scaler.stream(rowsTo: { row, y in
                            transform?.apply(
                                input: row, inputStride: width * channels, output: row,
                                outputStride: width * channels, width: width, rows: 1)
                            average.add(row: row, width: width, y: y)
                            chain?.add(row: row)
                            write(row)
                        }) { scaler throws(ThumbnailError) in
                            try Self.feedRows(decoder, into: scaler, stride: stride)
                        }
                    }
                }
            }
            var thumbnail = EncodedThumbnail(
                format: .png, data: try encoded.get(), width: width, height: scaler.targetHeight,
                averageColour: average.text, sourceWidth: header.width, sourceHeight: header.height,
                warnings: warnings, colour: conversion)
            thumbnail.leadingByteCount = leadingByteCount
            if let chain { return .encodedWithHalves(thumbnail, chain.finish()) }
            return .encoded(thumbnail)
        }

        var image = try scaler.scale { scaler throws(ThumbnailError) in
            if header.isInterlaced {
                // malloc, not allocate(capacity:): running out of memory here must be an error
                // for this document (the worker's memory limit), not a trap.
                guard let raw = malloc(stride * header.height) else {
                    throw .outOfMemory(detail: "an interlaced \(header.width)x\(header.height) PNG is decoded whole")
                }
                defer { free(raw) }
                let whole = raw.assumingMemoryBound(to: UInt8.self)
                do throws(PNGError) { try decoder.readImage(into: whole, stride: stride) } catch {
                    throw Self.map(error)
                }
                scaler.push(rows: whole, stride: stride, count: header.height)
            } else {
                try Self.feedRows(decoder, into: scaler, stride: stride)
            }
        }
        // A tRNS colour that never occurs leaves an RGBA image that is opaque everywhere.
        if image.hasAlpha && image.isOpaque { image = image.droppingAlpha() }
        let conversion = colour.convert(&image, from: profile, sourceIsGray: header.isGray, warnings: &warnings)
        return .pixels(
            RenderedThumbnail(
                image: image, sourceWidth: header.width, sourceHeight: header.height, warnings: warnings,
                colour: conversion))
    }

    /// Streams a non-interlaced image's rows into the scaler, a batch at a time.
    private static func feedRows(_ decoder: PNGDecoder, into scaler: Downscaler, stride: Int) throws(ThumbnailError) {
        let height = decoder.header.height
        let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * rowsPerBatch)
        defer { rows.deallocate() }
        var done = 0
        while done < height {
            let count = min(rowsPerBatch, height - done)
            do throws(PNGError) {
                try decoder.readRows(into: rows, stride: stride, count: count)
            } catch { throw Self.map(error) }
            scaler.push(rows: rows, stride: stride, count: count)
            done += count
        }
    }

    /// The profile the colour chunks describe; nil for sRGB, and for a gAMA of 1/2.2 without
    /// other primaries than sRGB's (sRGB's own curve within a rounding step, as libpng also
    /// takes it), so that the common case costs nothing.
    static func colourProfile(_ chunks: PNGColourChunks, gray: Bool, warnings: inout [String]) -> ColourProfile? {
        do throws(ColourProfileError) {
            switch chunks {
            case .sRGB:
                return nil
            case .profile(let bytes):
                return try ColourProfile(bytes: bytes, fallbackName: "embedded ICC profile")
            case .gamma(let gamma, let chromaticities):
                if abs(gamma - 1 / 2.2) < 0.0025 && (chromaticities == nil || isSRGB(chromaticities!)) { return nil }
                return try ColourProfile.fromPNGChunks(gamma: gamma, chromaticities: chromaticities, gray: gray)
            case .chromaticities(let chromaticities):
                if isSRGB(chromaticities) { return nil }
                return try ColourProfile.fromPNGChunks(gamma: 1 / 2.2, chromaticities: chromaticities, gray: gray)
            }
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }

    /// Whether cHRM values are sRGB's (D65 white, Rec. 709 primaries), to libpng's precision.
    static func isSRGB(_ chromaticities: [Double]) -> Bool {
        let srgb = [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
        return zip(chromaticities, srgb).allSatisfy { abs($0 - $1) < 0.001 }
    }

    static func map(_ error: PNGError) -> ThumbnailError {
        if error.systemError != 0 { return .unreadable(reason: error.message) }
        if error.hitEndOfData { return .truncated(format: "PNG") }
        return .corrupt(format: "PNG", detail: error.message)
    }
}
