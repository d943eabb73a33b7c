import CJPEG2000
internal import CLibraryLoader
import GlanceCore

/// Decodes JPEG 2000 through OpenJPEG (loaded on the first such picture) for the
/// ``RasterPipeline``: at the coarsest resolution level that still covers the thumbnail (a
/// wavelet's levels halve the picture: OpenJPEG skips the finer ones), gray, RGB or sYCC, with
/// alpha, its ICC profile to sRGB.
final class JPEG2000Decoder: RasterDecoder {
    private(set) var header: RasterHeader
    private(set) var warnings: [String] = []

    private let handle: OpaquePointer
    private let format: String
    /// How many times the picture can be halved as it is decoded.
    private let reductions: Int

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_jpeg2000_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(library: "OpenJPEG", detail: String(nulTerminated: reason))
        }
        var (width, height, components, reductions): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        var failure = GLANCE_FAILURE_CORRUPT
        let opened = data.withUnsafeBufferPointer { bytes in
            glance_jpeg2000_open(
                bytes.baseAddress, bytes.count, &width, &height, &components, &reductions, &reason, reason.count,
                &failure)
        }
        guard let opened else { throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format) }
        handle = opened
        self.reductions = max(0, Int(reductions))
        header = RasterHeader(
            size: PixelSize(width: Int(width), height: Int(height)), isGray: components < 3, isLossy: true)
        header.profile = colourProfile(Self.iccProfile(in: data))
    }

    deinit { glance_jpeg2000_close(handle) }

    /// The most halvings that keep the picture at least the target's size.
    func plan(for target: PixelSize) -> RasterPlan {
        var shrink = 1
        var halvings = 0
        while halvings < reductions, (header.size.width / (shrink * 2)) >= target.width,
            (header.size.height / (shrink * 2)) >= target.height
        {
            shrink *= 2
            halvings += 1
        }
        let size = PixelSize(
            width: (header.size.width + shrink - 1) / shrink, height: (header.size.height + shrink - 1) / shrink)
        return RasterPlan(size: size, shrink: shrink)
    }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        var reason = [CChar](repeating: 0, count: 512)
        var failure = GLANCE_FAILURE_CORRUPT
        var (width, height, channels, gray): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        let reduce = Int32(plan.shrink.trailingZeroBitCount)
        guard
            glance_jpeg2000_decode(
                handle, reduce, &width, &height, &channels, &gray, &reason, reason.count, &failure) == 1
        else { throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format) }
        return RasterRows(
            size: PixelSize(width: Int(width), height: Int(height)), channels: Int(channels), streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        rows.pushInBands { first, count, out in glance_jpeg2000_read_rows(handle, Int32(first), Int32(count), out) }
    }

    /// A JP2 file's ICC profile: its header box's `colr` box of method 2 or 3 (OpenJPEG gives it
    /// only once the picture is decoded, after the pipeline has read the header); nil for a bare
    /// codestream or an enumerated colour space.
    static func iccProfile(in data: [UInt8]) -> [UInt8]? {
        func boxes(_ range: Range<Int>) -> [(kind: String, body: Range<Int>)] {
            var found: [(String, Range<Int>)] = []
            var at = range.lowerBound
            while at + 8 <= range.upperBound {
                let size = data.bigEndian(at: at, count: 4)
                guard size >= 8, size <= range.upperBound - at else { break }
                found.append((String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self), (at + 8)..<(at + size)))
                at += size
            }
            return found
        }
        guard let header = boxes(0..<data.count).first(where: { $0.kind == "jp2h" }),
            let colour = boxes(header.body).first(where: { $0.kind == "colr" }), colour.body.count > 3,
            [2, 3].contains(data[colour.body.lowerBound])
        else { return nil }
        return Array(data[(colour.body.lowerBound + 3)..<colour.body.upperBound])
    }

    /// The colour `bytes` (an ICC profile) describe; nil for sRGB or none; one that cannot be
    /// used is a warning.
    private func colourProfile(_ bytes: [UInt8]?) -> ColourProfile? {
        guard let bytes, !bytes.isEmpty else { return nil }
        do throws(ColourProfileError) {
            let profile = try ColourProfile(bytes: bytes, fallbackName: "embedded ICC profile")
            return profile.isSRGB ? nil : profile
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }
}
