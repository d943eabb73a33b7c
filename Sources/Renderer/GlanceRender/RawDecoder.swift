internal import CFileAccess
internal import CRaw
import GlanceCore

/// Decodes camera raw photos through LibRaw (loaded on the first raw file) for the
/// ``RasterPipeline``, in one of two ways:
///
/// - **The embedded preview**, when the camera stored a JPEG at least the thumbnail's size (or
///   the whole image's, if that is smaller) in the image's proportions: most cameras store one
///   at full or near-full size. It is decoded by ``JPEGDecoder`` with DCT scaling (the fast
///   path: the sensor data is never read), in the preview's own colour (its ICC profile when it
///   has one, else sRGB, which is what cameras write), and turned as the camera was held.
/// - **Developed**, otherwise: LibRaw demosaics the sensor data with the white balance the camera
///   recorded, to sRGB, at half size (one pixel per 2x2 block, no interpolation) when that still
///   fills the thumbnail, else at full size with bilinear interpolation.
///
/// The camera, the capture time and the developed size go into ``DocumentDetails/camera``. The
/// pixel limit holds what is decoded: the preview's pixels, or the sensor's when it is developed
/// (what unpacking allocates), so that a 102-megapixel camera's photo is drawn from its preview
/// under the default limit of 100.
final class RawDecoder: RasterDecoder {
    let header: RasterHeader
    private var noticed: [String] = []
    var warnings: [String] { noticed + (preview?.warnings ?? []) }
    var conversionDone: ColourConversion? { preview?.conversionDone }

    private let file: RawFile
    /// The preview's decoder and the in-memory file it reads, when the preview is drawn.
    private let preview: (any RasterDecoder)?
    private let previewFile: OpenFile?
    private let sensorPixels: Int

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        file = try RawFile(
            file: request.file, format: type.displayName,
            maxMemoryMegabytes: max(64, request.maxDecoderMemoryBytes >> 20))
        let info = file.info
        let stored = PixelSize(width: Int(info.width), height: Int(info.height))
        guard stored.width > 0, stored.height > 0 else {
            throw .corrupt(format: type.displayName, detail: "the header gives no image size")
        }
        sensorPixels = max(Int(info.raw_width) * Int(info.raw_height), stored.width * stored.height)
        let orientation = Self.orientation(flip: Int(info.flip))
        var chosen: (decoder: any RasterDecoder, file: OpenFile)?
        var noticed: [String] = []
        // A preview LibRaw gives no size for is read to find its size; one it gives a size for is
        // read only when that size serves, and is then held to its own header's size.
        let embedded =
            info.preview_format == 1
            ? PixelSize(width: Int(info.preview_width), height: Int(info.preview_height)) : nil
        let sizeUnknown = embedded.map { $0.width == 0 || $0.height == 0 } ?? false
        if sizeUnknown || Self.previewServes(image: stored, preview: embedded, box: request.maxSide) {
            do throws(ThumbnailError) {
                let previewFile = try file.previewFile()
                var previewRequest = request
                previewRequest.file = previewFile
                previewRequest.name = "preview"
                let decoder = try JPEGDecoder(previewRequest, type: .jpeg, colourTransforms: colourTransforms)
                if Self.previewServes(image: stored, preview: decoder.header.size, box: request.maxSide) {
                    chosen = (decoder, previewFile)
                }
            } catch {
                noticed.append("the embedded preview was not drawn (\(error)); the sensor data was developed")
            }
        }
        preview = chosen?.decoder
        previewFile = chosen?.file
        self.noticed = noticed
        let shown = orientation.swapsAxes ? PixelSize(width: stored.height, height: stored.width) : stored
        let camera = CameraDetails(
            make: String(fixedCText: info.make), model: String(fixedCText: info.model),
            captured: CameraDetails.timestamp(
                year: Int(info.year), month: Int(info.month), day: Int(info.day), hour: Int(info.hour),
                minute: Int(info.minute), second: Int(info.second)),
            width: shown.width, height: shown.height, picture: chosen == nil ? .developed : .preview)
        var header = chosen?.decoder.header ?? RasterHeader(size: stored, isLossy: true)
        // The camera's turn, not the preview's own EXIF (a preview stored sideways carries none).
        header.orientation = orientation
        header.isLossy = true
        header.details = DocumentDetails(camera: camera)
        self.header = header
    }

    /// The preview's own plan (the sensor data is never unpacked); or a development at half size
    /// when that covers the target, else at full size, held to the limit by the sensor's pixels.
    func plan(for target: PixelSize) -> RasterPlan {
        if let preview { return preview.plan(for: target) }
        let half = PixelSize(width: header.size.width / 2, height: header.size.height / 2)
        // The limit counts the sensor's pixels, which unpacking holds whatever the development's
        // size: no reduction for its message.
        if half.covers(target) { return RasterPlan(size: half, limitedPixels: sensorPixels) }
        return RasterPlan(size: header.size, limitedPixels: sensorPixels)
    }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        if let preview { return try preview.start(plan) }
        let developed = try file.develop(halfSize: plan.size != header.size)
        return RasterRows(size: developed, channels: 3, streamed: false)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        if let preview { return try preview.read(into: rows) }
        rows.pushInBands { first, count, out in file.readRows(from: first, count: count, into: out) }
    }

    /// Whether the embedded preview is drawn: a JPEG (`preview`, nil when there is none) whose
    /// longer side is at least the box's (or the image's, when the image is smaller than the
    /// box), in the image's proportions within 2% (some cameras pad a preview to 16:9, or crop it).
    static func previewServes(image: PixelSize, preview: PixelSize?, box: Int) -> Bool {
        guard let preview, preview.width > 0, preview.height > 0, image.width > 0, image.height > 0 else {
            return false
        }
        guard max(preview.width, preview.height) >= min(box, max(image.width, image.height)) else { return false }
        let proportion = Double(image.width) / Double(image.height)
        let previewProportion = Double(preview.width) / Double(preview.height)
        return abs(previewProportion / proportion - 1) <= 0.02
    }

    /// The turn LibRaw's `flip` names, as EXIF names it.
    static func orientation(flip: Int) -> ExifOrientation {
        switch flip {
        case 3: .down
        case 5: .left
        case 6: .right
        default: .up
        }
    }
}

/// An open raw file: owns LibRaw's state, the file's mapping and the developed image, and frees
/// them.
final class RawFile {
    private let handle: OpaquePointer
    private let format: String
    /// The header's description.
    let info: glance_raw_info

    /// Opens `file` (mapped, never named) and reads its header; LibRaw may allocate at most
    /// `maxMemoryMegabytes` for the sensor data.
    init(file: OpenFile, format: String, maxMemoryMegabytes: Int) throws(ThumbnailError) {
        self.format = format
        let size = file.status().map { Int($0.st_size) } ?? 0
        guard size > 0 else { throw .empty }
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_raw_load(&reason, reason.count) == 1 else {
            throw .unsupportedEncoding(
                format: format, detail: "LibRaw cannot be loaded: \(String(nulTerminated: reason))")
        }
        var failure = GLANCE_RAW_CORRUPT
        guard
            let opened = glance_raw_open(
                file.descriptor, size, UInt32(maxMemoryMegabytes), &reason, reason.count, &failure)
        else {
            let text = String(nulTerminated: reason)
            switch failure {
            case GLANCE_RAW_TRUNCATED: throw .truncated(format: format)
            case GLANCE_RAW_UNREADABLE: throw .unreadable(reason: text)
            case GLANCE_RAW_UNSUPPORTED: throw .unsupportedEncoding(format: format, detail: text)
            default: throw .corrupt(format: format, detail: text)
            }
        }
        handle = opened
        var info = glance_raw_info()
        glance_raw_describe(opened, &info)
        self.info = info
    }

    deinit { glance_raw_close(handle) }

    /// The embedded JPEG preview, copied into a sealed in-memory file.
    func previewFile() throws(ThumbnailError) -> OpenFile {
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_raw_preview(handle, &bytes, &length, &reason, reason.count) == 1, let bytes else {
            throw .corrupt(format: format, detail: String(nulTerminated: reason))
        }
        let descriptor = glance_memory_file(bytes, length)
        guard descriptor >= 0 else { throw .unreadable(reason: "the preview could not be copied into memory") }
        return OpenFile(adopting: descriptor)
    }

    /// Develops the sensor data (see `glance_raw_develop`); gives the developed size.
    func develop(halfSize: Bool) throws(ThumbnailError) -> PixelSize {
        var (width, height): (Int32, Int32) = (0, 0)
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_raw_develop(handle, halfSize ? 1 : 0, &width, &height, &reason, reason.count) == 1 else {
            let text = String(nulTerminated: reason)
            if text.lowercased().contains("memory") { throw .outOfMemory(detail: "developing the \(format): \(text)") }
            throw .corrupt(format: format, detail: text)
        }
        return PixelSize(width: Int(width), height: Int(height))
    }

    /// Copies `count` developed rows from `first` into `out`.
    func readRows(from first: Int, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        glance_raw_read_rows(handle, Int32(first), Int32(count), out)
    }
}
