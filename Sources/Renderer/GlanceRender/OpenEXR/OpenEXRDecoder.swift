import CEXR
internal import CLibraryLoader
import GlanceCore

/// Decodes OpenEXR through OpenEXRCore (loaded on the first such file) for the ``RasterPipeline``:
/// the first part, scanlines or tiles (a mipmapped file's full-resolution level) in any of the
/// format's compressions (deep files are refused in one line), its `R`, `G`, `B` (or `Y`) and `A`
/// channels, or a multi-layer render's beauty pass (`Combined`, `beauty` or `RGBA`; else the first
/// layer with all three). The samples are linear light, premultiplied by alpha, on the
/// `chromaticities` attribute's primaries (sRGB's without it): divided by alpha, brought to sRGB's
/// primaries, clipped at 1 and encoded by the sRGB curve, as libvips draws them. Rows are read a
/// chunk (or a row of tiles) at a time through the document's descriptor and scaled as they come.
final class OpenEXRDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String]

    private let file: OpenEXRFile

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        file = try OpenEXRFile(file: request.file, format: type.displayName)
        let info = file.info
        var warnings = ["linear light: values past 1 clipped"]
        let layer = withUnsafeBytes(of: info.layer) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        if !layer.isEmpty { warnings.append("layer \"\(layer)\" drawn (no plain R, G, B channels)") }
        self.warnings = warnings
        header = RasterHeader(
            size: PixelSize(width: Int(info.width), height: Int(info.height)), isGray: info.is_gray != 0)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: file.channels, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height, channels) = (header.size.width, header.size.height, file.channels)
        var buffer = [UInt8](repeating: 0, count: width * Int(file.info.rows_per_chunk) * channels)
        var row = 0
        while row < height {
            let count = try buffer.withUnsafeMutableBufferPointer { out throws(ThumbnailError) in
                let count = try file.readChunk(at: row, into: out.baseAddress!)
                rows.push(rows: out.baseAddress!, stride: width * channels, count: count)
                return count
            }
            row += count
        }
    }
}

/// An open OpenEXR file: owns OpenEXRCore's context and the shim's buffers, and frees them. Reads
/// through the document's descriptor, which stays the caller's.
final class OpenEXRFile {
    private let handle: OpaquePointer
    private let format: String
    /// What the first part's header says.
    let info: glance_exr_info

    /// The bytes a pixel of the rows given: RGB, or RGBA with alpha.
    var channels: Int { info.has_alpha != 0 ? 4 : 3 }

    /// The longest side OpenEXRCore is let read a header of: past the pixel limit's square root
    /// many times over, below where its own sizes overflow.
    static let maximumSide: Int32 = 1 << 20

    init(file: OpenFile, format: String) throws(ThumbnailError) {
        self.format = format
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_exr_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(library: "OpenEXRCore", detail: String(nulTerminated: reason))
        }
        let size = file.status().map { UInt64($0.st_size) } ?? 0
        guard size > 0 else { throw .empty }
        var failure = GLANCE_FAILURE_CORRUPT
        var info = glance_exr_info()
        guard
            let opened = glance_exr_open(
                file.descriptor, size, Self.maximumSide, &info, &reason, reason.count, &failure)
        else {
            throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format)
        }
        handle = opened
        self.info = info
    }

    deinit { glance_exr_close(handle) }

    /// Decodes the chunk at `row` into `out`; returns its rows.
    func readChunk(at row: Int, into out: UnsafeMutablePointer<UInt8>) throws(ThumbnailError) -> Int {
        var reason = [CChar](repeating: 0, count: 512)
        var failure = GLANCE_FAILURE_CORRUPT
        let count = glance_exr_read_chunk(handle, Int32(row), out, &reason, reason.count, &failure)
        guard count > 0 else { throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format) }
        return Int(count)
    }
}
