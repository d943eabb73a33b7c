import CJXL
internal import CLibraryLoader
import GlanceCore

/// Decodes JPEG XL through libjxl (loaded on the first such file) for the ``RasterPipeline``: the
/// first displayed frame (an animation's others are not decoded), its orientation from the
/// codestream applied by the pipeline to the thumbnail, its alpha unpremultiplied, its colour from
/// libjxl's description of the pixels it gives (a lossy, XYB-coded picture asked for in sRGB), and
/// an HDR picture (PQ or HLG, BT.2100's primaries) tone-mapped to SDR as videos are (`CColour`).
///
/// The picture is decoded whole, at its stored size: libjxl 0.7 decodes no smaller. Its
/// progressive DC pass is an eighth of the size, which covers the 1024-pixel thumbnail of a
/// picture of 8,192 pixels a side or more, but libjxl gives it only upsampled to the whole size
/// (`JxlDecoderFlushImage`), and that costs more than the whole decode: on a 9600x6400 lossy
/// photo (cjxl -d 1), one thread, the DC pass was ready after 0.31 s and its flush took 2.3 s
/// more, while glance's whole decode and thumbnail took 1.7-2.5 s (tried and measured on
/// 2026-12-07, not kept).
final class JPEGXLDecoder: RasterDecoder {
    let header: RasterHeader
    private(set) var warnings: [String] = []

    private let file: JPEGXLFile
    private let format: String

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        file = try JPEGXLFile(file: request.file, format: format)
        let info = file.info
        var warnings: [String] = []
        let profile = file.colourProfile(warnings: &warnings)
        if info.is_animation != 0 { warnings.append("an animation: its first frame is the thumbnail") }
        if info.transfer != GLANCE_JXL_SDR, profile == nil {
            warnings.append("an HDR picture (\(info.transfer == GLANCE_JXL_PQ ? "PQ" : "HLG")), tone-mapped to SDR")
        }
        self.warnings = warnings
        header = RasterHeader(
            size: PixelSize(width: Int(info.width), height: Int(info.height)),
            orientation: ExifOrientation(rawValue: Int(info.orientation)) ?? .up, profile: profile,
            isGray: info.is_gray != 0, isLossy: info.is_xyb != 0 || info.is_recompressed_jpeg != 0)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        let channels = try file.decode()
        return RasterRows(size: header.size, channels: channels, streamed: false)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height) = (header.size.width, header.size.height)
        guard let pixels = file.pixels else { throw .corrupt(format: format, detail: "nothing was decoded") }
        let stride = width * file.channels
        let band = max(1, min(height, (1 << 20) / stride))
        var row = 0
        while row < height {
            let count = min(band, height - row)
            rows.push(rows: pixels + row * stride, stride: stride, count: count)
            row += count
        }
    }
}

/// An open JPEG XL file: owns libjxl's decoder, the file's bytes and the decoded pixels, and frees them.
final class JPEGXLFile {
    private let handle: OpaquePointer
    private let format: String
    /// What the codestream's header says.
    let info: glance_jxl_info
    /// The channels decoded (3: RGB, 4: RGBA), once ``decode()`` has run.
    private(set) var channels = 0

    /// Opens `file`, read whole here; the shim keeps its own copy, which libjxl decodes.
    init(file: OpenFile, format: String) throws(ThumbnailError) {
        self.format = format
        let data = try FileReader.readWhole(of: file)
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_jxl_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(library: "libjxl", detail: String(nulTerminated: reason))
        }
        var failure = GLANCE_FAILURE_CORRUPT
        var info = glance_jxl_info()
        let opened = data.withUnsafeBufferPointer { bytes in
            glance_jxl_open(bytes.baseAddress, bytes.count, &info, &reason, reason.count, &failure)
        }
        guard let opened else {
            throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format)
        }
        handle = opened
        self.info = info
    }

    deinit { glance_jxl_close(handle) }

    /// Decodes the first frame to 8-bit RGB or RGBA; returns the channels.
    func decode() throws(ThumbnailError) -> Int {
        var reason = [CChar](repeating: 0, count: 512)
        var failure = GLANCE_FAILURE_CORRUPT
        var channels: Int32 = 0
        guard glance_jxl_decode(handle, &channels, &reason, reason.count, &failure) == 1 else {
            throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format)
        }
        self.channels = Int(channels)
        return self.channels
    }

    /// The decoded rows, packed; nil before ``decode()``.
    var pixels: UnsafePointer<UInt8>? { glance_jxl_pixels(handle) }

    /// The colour the pixels are given in, as libjxl describes it; nil for sRGB, for pixels
    /// tone-mapped to sRGB here, or when it gives none. One that cannot be used is a warning.
    func colourProfile(warnings: inout [String]) -> ColourProfile? {
        let length = glance_jxl_icc_profile(handle, nil, 0)
        guard length > 0, length < 16 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: length)
        guard glance_jxl_icc_profile(handle, &bytes, bytes.count) == length else { return nil }
        do throws(ColourProfileError) {
            let profile = try ColourProfile(bytes: bytes, fallbackName: "JPEG XL colour encoding")
            return profile.isSRGB ? nil : profile
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }
}
