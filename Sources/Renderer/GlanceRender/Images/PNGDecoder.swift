import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Decodes PNG images of every colour type and bit depth for the ``RasterPipeline``, to 8-bit
/// RGB or RGBA, and hands it the image's iCCP profile, or the one its gAMA and cHRM chunks make
/// when it has none.
///
/// Non-interlaced images stream row by row, so memory does not grow with the image's height (and
/// an opaque one is encoded while it is scaled). Interlaced (Adam7) images cannot be streamed:
/// their last pass fills every other row of the whole image, so they are decoded whole (and are
/// held to the pixel limit).
final class PNGDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String]

    private let file: PNGFile
    private let stored: PNGHeader

    /// Rows read per call into libpng.
    private static let rowsPerBatch = 16

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        do { file = try PNGFile(file: request.file) } catch { throw Self.map(error) }
        stored = file.header
        var warnings: [String] = []
        let profile = Self.colourProfile(file.colourChunks, gray: stored.isGray, warnings: &warnings)
        self.warnings = warnings
        header = RasterHeader(
            size: PixelSize(width: stored.width, height: stored.height), profile: profile, isGray: stored.isGray)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        let channels: Int
        do { channels = try file.start() } catch { throw Self.map(error) }
        return RasterRows(size: plan.size, channels: channels, streamed: !stored.isInterlaced)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let stride = stored.width * rows.channels
        if stored.isInterlaced {
            // malloc, not allocate(capacity:): running out of memory here must be an error for
            // this document (the renderer's memory limit), not a trap.
            guard let raw = malloc(stride * stored.height) else {
                throw .outOfMemory(detail: "an interlaced \(stored.width)x\(stored.height) PNG is decoded whole")
            }
            defer { free(raw) }
            let whole = raw.assumingMemoryBound(to: UInt8.self)
            do throws(PNGError) { try file.readImage(into: whole, stride: stride) } catch { throw Self.map(error) }
            rows.push(rows: whole, stride: stride, count: stored.height)
            return
        }
        let batch = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * Self.rowsPerBatch)
        defer { batch.deallocate() }
        var done = 0
        while done < stored.height {
            let count = min(Self.rowsPerBatch, stored.height - done)
            do throws(PNGError) {
                try file.readRows(into: batch, stride: stride, count: count)
            } catch { throw Self.map(error) }
            rows.push(rows: batch, stride: stride, count: count)
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
