internal import CFileAccess
internal import CLibraryLoader
internal import CRaw
import GlanceCore

/// Decodes camera raw photos through LibRaw (loaded on the first raw file) for the
/// ``RasterPipeline``, in one of two ways:
///
/// - **The embedded preview**, when the camera stored a JPEG at least the thumbnail's size (or
///   the whole image's, if that is smaller) in the image's proportions: most cameras store one
///   at full or near-full size. It is opened through ``EmbeddedPicture``, the one door for a
///   picture inside a file (a JPEG by ``JPEGDecoder``, with DCT scaling; the fast path: the
///   sensor data is never read), in the preview's own colour (its ICC profile when it
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

    private var file: RawFile?
    /// The decoder that draws instead of LibRaw's development, when one does: the embedded
    /// preview's (and the in-memory file it reads), or a TIFF's whose maker's name only made it
    /// look like a raw photo.
    private let preview: (any RasterDecoder)?
    private let previewFile: OpenFile?
    private let sensorPixels: Int
    /// What opened the file, for a fresh LibRaw state when a failed preview spoiled the first.
    private let request: RenderRequest
    private let type: ContentType

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        self.request = request
        self.type = type
        if type == .canonRaw3 { try Self.checkBoxes(of: request.file, format: type.displayName) }
        let file: RawFile
        do throws(ThumbnailError) {
            file = try Self.open(request, type: type)
        } catch {
            // A camera LibRaw does not know (anything since 2020): the JPEG preview the camera
            // stored, read without LibRaw, as photo managers do.
            if case .libraryUnavailable = error { throw error }
            if let bytes = RawPreviews.largest(in: request.file, type: type),
                let memory = Self.memoryFile(bytes)
            {
                if let decoder = try? EmbeddedPicture.decoder(
                    for: memory, as: "preview", request: request, colourTransforms: colourTransforms)
                {
                    self.file = nil
                    preview = decoder
                    previewFile = memory
                    sensorPixels = 0
                    noticed = ["LibRaw could not read it (\(error)): drawn from the JPEG preview the camera stored"]
                    var header = decoder.header
                    header.isLossy = true
                    header.details = DocumentDetails(
                        camera: CameraDetails(
                            make: nil, model: nil, captured: nil, width: header.size.width, height: header.size.height,
                            picture: .preview))
                    self.header = header
                    return
                }
            }
            // A camera maker's name and sub-directories made a plain TIFF look like a NEF or an
            // ARW: LibRaw refuses it, and it is drawn as the TIFF it is.
            guard Self.mayBePlainTIFF(type), Self.startsAsTIFF(request.file),
                let tiff = try? TIFFDecoder(request, type: .tiff, colourTransforms: colourTransforms)
            else { throw error }
            self.file = nil
            preview = tiff
            previewFile = nil
            sensorPixels = 0
            noticed = ["LibRaw did not take it for a raw photo (\(error)): drawn as the TIFF it is"]
            header = tiff.header
            return
        }
        self.file = file
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
                let decoder = try EmbeddedPicture.decoder(
                    for: previewFile, as: "preview", request: request, colourTransforms: colourTransforms)
                if Self.previewServes(image: stored, preview: decoder.header.size, box: request.maxSide) {
                    chosen = (decoder, previewFile)
                }
            } catch {
                noticed.append("the embedded preview was not drawn (\(error)); the sensor data was developed")
                // LibRaw's state after a failed preview read refuses every later call ("Out of
                // order call of libraw function"): the development starts from a fresh one.
                self.file = try Self.open(request, type: type)
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
        guard let file else { throw .corrupt(format: type.displayName, detail: "nothing to develop") }
        // Sensor data takes at least a bit a pixel, however it is compressed: a file too short
        // for that holds none (a shell with dummy previews), and LibRaw would develop zeros
        // into a white picture.
        if sensorPixels / 8 > file.byteCount { throw .truncated(format: type.displayName) }
        let developed = try file.develop(halfSize: plan.size != header.size)
        return RasterRows(size: developed, channels: 3, streamed: false)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        if let preview { return try preview.read(into: rows) }
        guard let file else { return }
        rows.pushInBands { first, count, out in file.readRows(from: first, count: count, into: out) }
    }

    /// LibRaw's state for the document of `request`.
    private static func open(_ request: RenderRequest, type: ContentType) throws(ThumbnailError) -> RawFile {
        try RawFile(
            file: request.file, format: type.displayName,
            maxMemoryMegabytes: max(64, request.maxDecoderMemoryBytes >> 20))
    }

    /// `bytes` as a sealed file in memory, for a decoder.
    static func memoryFile(_ bytes: [UInt8]) -> OpenFile? {
        let descriptor = bytes.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        return descriptor >= 0 ? OpenFile(adopting: descriptor) : nil
    }

    /// The kinds told from a TIFF by its maker's name (``RawSniffer``): such a file LibRaw
    /// refuses may be a plain TIFF.
    static func mayBePlainTIFF(_ type: ContentType) -> Bool { type == .nikonRaw || type == .sonyRaw }

    /// Whether `file` starts as a classic TIFF does.
    static func startsAsTIFF(_ file: OpenFile) -> Bool {
        guard let start = try? file.read(count: 4, at: 0) else { return false }
        return start == [0x49, 0x49, 0x2A, 0x00] || start == [0x4D, 0x4D, 0x00, 0x2A]
    }

    /// Walks a CR3's top-level boxes (ISO base media: a 32-bit size, or 1 and a 64-bit size, or 0
    /// for "to the end") before LibRaw sees the file: a box smaller than its own header, or one
    /// that runs past the end of the file, is refused at once. LibRaw 0.20 spun until the time
    /// limit on a 64-byte CR3 whose `mdat` has a 64-bit size of 0.
    static func checkBoxes(of file: OpenFile, format: String) throws(ThumbnailError) {
        guard let length = file.status().map({ Int64($0.st_size) }) else { return }
        switch ISOBoxes.walk(file, from: 0, to: length, { _ in }) {
        case .complete: return
        case .pastEnd: throw .truncated(format: format)
        case .tooSmall(let size):
            throw .corrupt(format: format, detail: "a box of \(size) bytes, smaller than its own header")
        }
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
    /// The file's size.
    let byteCount: Int
    /// The header's description.
    let info: glance_raw_info

    /// Opens `file` (mapped, never named) and reads its header; LibRaw may allocate at most
    /// `maxMemoryMegabytes` for the sensor data.
    init(file: OpenFile, format: String, maxMemoryMegabytes: Int) throws(ThumbnailError) {
        self.format = format
        let size = file.status().map { Int($0.st_size) } ?? 0
        byteCount = size
        guard size > 0 else { throw .empty }
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_raw_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(
                library: "LibRaw", detail: String(nulTerminated: reason))
        }
        var failure = GLANCE_FAILURE_CORRUPT
        guard
            let opened = glance_raw_open(
                file.descriptor, size, UInt32(maxMemoryMegabytes), &reason, reason.count, &failure)
        else {
            throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: format)
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
        var failure = GLANCE_FAILURE_CORRUPT
        guard glance_raw_preview(handle, &bytes, &length, &reason, reason.count, &failure) == 1, let bytes else {
            throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: "\(format) embedded preview")
        }
        // A preview cut short by the end of the file (LibRaw fills what it could not read with
        // zeros) has no end marker: drawn, its lost part would be garbage.
        var end = length
        while end > 2 && bytes[end - 1] == 0 { end -= 1 }
        guard end >= 2, bytes[end - 2] == 0xFF, bytes[end - 1] == 0xD9 else {
            throw .truncated(format: "\(format) embedded preview")
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
