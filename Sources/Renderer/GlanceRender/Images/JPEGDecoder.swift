internal import CJPEG
import GlanceCore

/// Decodes JPEG photos for the ``RasterPipeline``: shrunk on load by libjpeg's DCT scaling (the
/// largest of 1/2, 1/4, 1/8 that still covers the thumbnail), rows streamed as they are decoded,
/// the embedded ICC profile and the EXIF orientation handed to the pipeline.
///
/// CMYK and YCCK files with a profile are converted through it row by row as they are decoded
/// (CMYK cannot be resampled as RGB); without one, the decoder's plain formula stays.
final class JPEGDecoder: RasterDecoder {
    let header: RasterHeader
    private(set) var warnings: [String] = []
    private(set) var conversionDone: ColourConversion?

    private let file: JPEGFile
    private let stored: JPEGHeader
    private let transforms: ColourTransformCache
    private let maxMemoryBytes: Int
    /// A CMYK file's profile, which converts its rows as they come.
    private var cmykProfile: ColourProfile?
    private var denominator = 1

    /// Rows decoded per call into libjpeg: enough to amortise the call, few enough to stay small.
    private static let rowsPerBatch = 16

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        do { file = try JPEGFile(file: request.file) } catch { throw Self.map(error) }
        stored = file.header
        transforms = colourTransforms
        maxMemoryBytes = request.maxDecoderMemoryBytes
        var warnings: [String] = []
        var profile = Self.embeddedProfile(of: file, warnings: &warnings)
        if stored.components == 4, let cmyk = profile {
            profile = nil
            // Built now, before decoding starts: a profile lcms cannot use leaves the plain
            // formula, which needs a decoder started without raw CMYK.
            do throws(ColourProfileError) {
                guard cmyk.space == .cmyk else { throw .wrongSpace(profile: cmyk.name, image: "CMYK") }
                guard cmyk.isUsableClass else { throw .unsupportedClass(profile: cmyk.name) }
                conversionDone = ColourConversion(
                    profile: cmyk.name,
                    transformReused: try colourTransforms.withTransform(
                        for: cmyk, pixels: .cmyk(inverted: stored.isCMYKInverted)
                    ) { _ in })
                cmykProfile = cmyk
            } catch {
                warnings.append(error.warning)
            }
        }
        self.warnings = warnings
        header = RasterHeader(
            size: PixelSize(width: stored.width, height: stored.height), orientation: stored.orientation,
            profile: stored.components == 4 ? nil : profile, isGray: stored.components == 1, isLossy: true)
    }

    func plan(for target: PixelSize) -> RasterPlan {
        let denominator = ThumbnailGeometry.jpegScaleDenominator(
            width: stored.width, height: stored.height, targetWidth: target.width, targetHeight: target.height)
        return RasterPlan(
            size: PixelSize(
                width: (stored.width + denominator - 1) / denominator,
                height: (stored.height + denominator - 1) / denominator),
            shrink: denominator)
    }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        denominator = plan.shrink
        let size: (width: Int, height: Int)
        do {
            size = try file.start(
                scaleDenominator: plan.shrink, maxMemoryBytes: maxMemoryBytes, rawCMYK: cmykProfile != nil)
        } catch { throw Self.map(error, memoryLimit: maxMemoryBytes) }
        return RasterRows(size: PixelSize(size), channels: 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        if let cmykProfile {
            try readCMYKRows(width: rows.sourceWidth, profile: cmykProfile, into: rows)
        } else {
            let stride = rows.sourceWidth * 3
            let batch = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * Self.rowsPerBatch)
            defer { batch.deallocate() }
            while true {
                let count: Int
                do throws(JPEGError) {
                    count = try file.readRows(into: batch, stride: stride, maxRows: Self.rowsPerBatch)
                } catch { throw Self.map(error) }
                if count == 0 { break }
                rows.push(rows: batch, stride: stride, count: count)
            }
        }
        if let row = file.endOfDataRow {
            // A file cut short: libjpeg fills the rest with grey. Showing what did decode is
            // useful (it is how viewers behave), but only if something did.
            if row == 0 && !stored.isProgressive { throw .truncated(format: "JPEG") }
            warnings.append(
                "truncated JPEG data: the image ends after row \(row * denominator) of \(stored.height)")
        }
        let otherWarnings = file.warningCount - (file.endOfDataRow == nil ? 0 : 1)
        if otherWarnings > 0 { warnings.append("libjpeg recovered from \(otherWarnings) corrupt-data warning(s)") }
    }

    /// The file's ICC profile, read; nil when it has none, or (with a warning) one that cannot be read.
    private static func embeddedProfile(of file: JPEGFile, warnings: inout [String]) -> ColourProfile? {
        guard let bytes = file.iccProfile() else { return nil }
        do throws(ColourProfileError) {
            return try ColourProfile(bytes: bytes, fallbackName: "embedded ICC profile")
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }

    /// Decodes a CMYK file's rows as CMYK and pushes them into `scaler` converted to sRGB through
    /// `profile` (whose transform ``init(_:type:colourTransforms:)`` has built already).
    private func readCMYKRows(width: Int, profile: ColourProfile, into scaler: Downscaler) throws(ThumbnailError) {
        let rowsPerBatch = Self.rowsPerBatch
        let inverted = stored.isCMYKInverted
        let cmykStride = width * 4
        let rgbStride = width * 3
        let cmyk = UnsafeMutablePointer<UInt8>.allocate(capacity: cmykStride * rowsPerBatch)
        defer { cmyk.deallocate() }
        let rgb = UnsafeMutablePointer<UInt8>.allocate(capacity: rgbStride * rowsPerBatch)
        defer { rgb.deallocate() }
        while true {
            let count: Int
            do throws(JPEGError) {
                count = try file.readRows(into: cmyk, stride: cmykStride, maxRows: rowsPerBatch)
            } catch { throw Self.map(error) }
            if count == 0 { break }
            do throws(ColourProfileError) {
                _ = try transforms.withTransform(for: profile, pixels: .cmyk(inverted: inverted)) { transform in
                    transform.apply(
                        input: cmyk, inputStride: cmykStride, output: rgb, outputStride: rgbStride, width: width,
                        rows: count)
                }
            } catch {
                // Built a moment ago from the same bytes; only running out of memory gets here.
                throw .outOfMemory(detail: "cannot rebuild the colour transform of \"\(profile.name)\"")
            }
            scaler.push(rows: rgb, stride: rgbStride, count: count)
        }
    }

    /// libjpeg's failures, in the words a user needs.
    static func map(_ error: JPEGError, memoryLimit: Int = 0) -> ThumbnailError {
        switch error.kind {
        case .cannotOpen: return .unreadable(reason: error.message)
        case .needsMemory: return .needsTooMuchMemory(format: "JPEG", limitMegabytes: memoryLimit >> 20)
        case .unsupported: return .unsupportedEncoding(format: "JPEG", detail: error.message)
        case .tooBig: return .corrupt(format: "JPEG", detail: error.message)
        case .corrupt:
            return error.hitEndOfData ? .truncated(format: "JPEG") : .corrupt(format: "JPEG", detail: error.message)
        }
    }
}
