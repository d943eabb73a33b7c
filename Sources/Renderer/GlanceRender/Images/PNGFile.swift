internal import CPNG
import GlanceCore

/// An error from libpng, copied out of the shim.
public struct PNGError: Error, Sendable, CustomStringConvertible {
    /// libpng's message (or the system's, when the file could not be opened).
    public let message: String
    /// Whether the file ended before the image data did.
    public let hitEndOfData: Bool
    /// errno, when the file could not be opened; 0 otherwise.
    public let systemError: Int32

    public var description: String { "libpng: \(message)" }

    init(_ error: glance_png_error) {
        systemError = error.code
        hitEndOfData = error.hit_end_of_data != 0
        message = withUnsafeBytes(of: error.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}

/// The header facts of a PNG.
struct PNGHeader {
    let width: Int
    let height: Int
    let isInterlaced: Bool
    /// A gray colour type (expanded to RGB by the decoder).
    let isGray: Bool
}

/// What a PNG says of its colours, from the chunks before the image data.
enum PNGColourChunks {
    /// An sRGB chunk, or nothing at all: the samples are sRGB.
    case sRGB
    /// An iCCP profile.
    case profile([UInt8])
    /// gAMA (file gamma) and perhaps cHRM (white, red, green, blue x and y), without iCCP.
    case gamma(Double, chromaticities: [Double]?)
    /// cHRM alone: sRGB's curve is taken for the missing gamma.
    case chromaticities([Double])
}

/// A libpng reader for one file; owns the C decoder and frees it. Used from one task only.
final class PNGFile {
    private let handle: OpaquePointer
    let header: PNGHeader

    /// Checks the open `file`'s signature and reads the chunks before the image data.
    init(file: OpenFile) throws(PNGError) {
        var raw = glance_png_header()
        var error = glance_png_error()
        guard let handle = glance_png_open(file.descriptor, &raw, &error) else { throw PNGError(error) }
        self.handle = handle
        header = PNGHeader(
            width: Int(raw.width), height: Int(raw.height), isInterlaced: raw.interlaced != 0,
            isGray: raw.color_type & 2 == 0 && raw.color_type != 3)
    }

    /// The colour chunks, in the PNG specification's order of precedence: iCCP, then sRGB,
    /// then gAMA and cHRM.
    var colourChunks: PNGColourChunks {
        var raw = glance_png_colour()
        glance_png_colour_chunks(handle, &raw)
        let chromaticities: [Double]? =
            raw.has_chromaticities != 0
            ? withUnsafeBytes(of: raw.chromaticities) { Array($0.bindMemory(to: Double.self)) } : nil
        if let icc = raw.icc, raw.icc_length > 0 {
            return .profile(Array(UnsafeBufferPointer(start: icc, count: raw.icc_length)))
        }
        if raw.has_srgb != 0 { return .sRGB }
        if raw.has_gamma != 0 { return .gamma(raw.gamma, chromaticities: chromaticities) }
        if let chromaticities { return .chromaticities(chromaticities) }
        return .sRGB
    }

    deinit { glance_png_free(handle) }

    /// Sets up 8-bit RGB or RGBA output; returns the channel count (3 or 4).
    func start() throws(PNGError) -> Int {
        var channels: Int32 = 0
        var error = glance_png_error()
        guard glance_png_start(handle, &channels, &error) == Int32(GLANCE_PNG_OK.rawValue) else {
            throw PNGError(error)
        }
        return Int(channels)
    }

    /// Reads the next `count` rows of a non-interlaced image.
    func readRows(into rows: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(PNGError) {
        var error = glance_png_error()
        guard glance_png_read_rows(handle, rows, stride, Int32(count), &error) == Int32(GLANCE_PNG_OK.rawValue)
        else { throw PNGError(error) }
    }

    /// Reads a whole (interlaced) image into `image`.
    func readImage(into image: UnsafeMutablePointer<UInt8>, stride: Int) throws(PNGError) {
        var error = glance_png_error()
        guard glance_png_read_image(handle, image, stride, &error) == Int32(GLANCE_PNG_OK.rawValue) else {
            throw PNGError(error)
        }
    }
}
