import CHEIF
internal import CLibraryLoader
import GlanceCore

/// Decodes HEIC/HEIF and AVIF images through libheif (loaded on the first such file) for the
/// ``RasterPipeline``: the primary image, with its rotation, mirroring and crop (`irot`, `imir`,
/// `clap`) applied by libheif, its alpha kept, its colour from its ICC profile or its nclx
/// primaries.
///
/// When the file holds a thumbnail image at least as large as the thumbnail asked for, that is
/// decoded instead of the primary image: libheif offers no decode-time scaling (neither HEVC nor
/// AV1 has one), so a 12-megapixel photo is decoded whole otherwise. Phones store a small
/// thumbnail (about 320 pixels), which serves the smaller sizes only.
final class HEIFDecoder: RasterDecoder {
    let header: RasterHeader
    private(set) var warnings: [String] = []

    private let file: HEIFFile
    private let format: String

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        file = try HEIFFile(file: request.file, format: format)
        var warnings: [String] = []
        let profile = file.colourProfile(warnings: &warnings)
        self.warnings = warnings
        header = RasterHeader(
            size: PixelSize(width: Int(file.info.width), height: Int(file.info.height)), profile: profile,
            isLossy: true)
    }

    /// The file's own thumbnail where it serves (``thumbnailServes(_:target:width:height:)``),
    /// else the primary image; the limit is the primary image's either way.
    func plan(for target: PixelSize) -> RasterPlan {
        let primary = header.size.width * header.size.height
        guard
            Self.thumbnailServes(
                file.info, target: (target.width, target.height), width: header.size.width, height: header.size.height)
        else { return RasterPlan(size: header.size) }
        return RasterPlan(
            size: PixelSize(width: Int(file.info.thumbnail_width), height: Int(file.info.thumbnail_height)),
            limitedPixels: primary)
    }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        let useThumbnail = plan.size != header.size
        let decoded = try file.decode(thumbnail: useThumbnail)
        if useThumbnail { warnings.append("drawn from the file's own \(decoded.width)x\(decoded.height) thumbnail") }
        return RasterRows(
            size: PixelSize(width: decoded.width, height: decoded.height), channels: decoded.channels, streamed: true)
    }

    /// The planes interleaved a band at a time (``Downscaler/pushInBands(_:)``).
    func read(into rows: Downscaler) throws(ThumbnailError) {
        rows.pushInBands { first, count, out in file.readRows(from: first, count: count, into: out) }
    }

    /// Whether the file's own thumbnail is at least the size asked for, in the primary image's
    /// proportions: its longer side at least the target's, its shorter side at most a pixel short
    /// (encoders round it down) and within a pixel and a half of the proportions, so that drawing
    /// from it loses nothing.
    static func thumbnailServes(
        _ info: glance_heif_info, target: (width: Int, height: Int), width: Int, height: Int
    ) -> Bool {
        let (thumbnailWidth, thumbnailHeight) = (Int(info.thumbnail_width), Int(info.thumbnail_height))
        guard thumbnailWidth > 0, thumbnailHeight > 0,
            max(thumbnailWidth, thumbnailHeight) >= max(target.width, target.height),
            thumbnailWidth >= target.width - 1, thumbnailHeight >= target.height - 1
        else { return false }
        let expectedHeight = Double(thumbnailWidth) * Double(height) / Double(width)
        return abs(expectedHeight - Double(thumbnailHeight)) <= 1.5
    }
}

/// An open HEIF file: owns libheif's context, image handles and decoded pixels, and frees them.
final class HEIFFile {
    private let handle: OpaquePointer
    private let format: String
    /// The primary image's description.
    let info: glance_heif_info

    /// The size and channels (3: RGB, 4: RGBA) of what was decoded.
    struct Decoded {
        let width: Int
        let height: Int
        let channels: Int
    }

    /// Opens `file`, read once by the shim into the buffer libheif parses.
    init(file: OpenFile, format: String) throws(ThumbnailError) {
        self.format = format
        let size = file.status().map { Int($0.st_size) } ?? 0
        guard size > 0 else { throw .empty }
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_heif_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(
                library: "libheif", detail: String(nulTerminated: reason))
        }
        var failure = GLANCE_FAILURE_CORRUPT
        guard let opened = glance_heif_open(file.descriptor, size, &reason, reason.count, &failure) else {
            throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format)
        }
        handle = opened
        var info = glance_heif_info()
        glance_heif_describe(opened, &info)
        self.info = info
    }

    deinit { glance_heif_close(handle) }

    /// Decodes the primary image, or its largest thumbnail, to 8-bit RGB or RGBA planes.
    func decode(thumbnail: Bool) throws(ThumbnailError) -> Decoded {
        var (width, height, channels): (Int32, Int32, Int32) = (0, 0, 0)
        var reason = [CChar](repeating: 0, count: 512)
        guard
            glance_heif_decode(handle, thumbnail ? 1 : 0, &width, &height, &channels, &reason, reason.count) == 1
        else {
            let text = String(nulTerminated: reason)
            if text.lowercased().contains("end of data") { throw .truncated(format: format) }
            throw .corrupt(format: format, detail: text)
        }
        return Decoded(width: Int(width), height: Int(height), channels: Int(channels))
    }

    /// Interleaves `count` decoded rows from `first` into `out`.
    func readRows(from first: Int, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        glance_heif_read_rows(handle, Int32(first), Int32(count), out)
    }

    /// The primary image's colour: its ICC profile, else a profile made from its nclx primaries
    /// when they are not sRGB's (BT.709) or unspecified; nil for sRGB. One that cannot be used
    /// is a warning.
    func colourProfile(warnings: inout [String]) -> ColourProfile? {
        do throws(ColourProfileError) {
            let length = glance_heif_icc_profile(handle, nil, 0)
            if length > 0, length < 16 << 20 {
                var bytes = [UInt8](repeating: 0, count: length)
                guard glance_heif_icc_profile(handle, &bytes, bytes.count) == length else { return nil }
                return try ColourProfile(bytes: bytes, fallbackName: "embedded ICC profile")
            }
            var primaries: Int32 = 0
            var transfer: Int32 = 0
            var chromaticities = [Double](repeating: 0, count: 8)
            guard glance_heif_nclx(handle, &primaries, &transfer, &chromaticities) == 1, primaries != 1, primaries != 2
            else { return nil }
            let name =
                primaries == 12
                ? "Display P3 (nclx)" : primaries == 9 ? "BT.2020 (nclx)" : "nclx primaries \(primaries)"
            return try ColourProfile.fromPrimaries(chromaticities, name: name)
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }

}
