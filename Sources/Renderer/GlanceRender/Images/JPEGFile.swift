internal import CJPEG
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// An error from libjpeg-turbo, copied out of its error manager.
public struct JPEGError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable {
        case corrupt, cannotOpen, needsMemory, unsupported, tooBig
    }
    public let kind: Kind
    /// The libjpeg message code (`J_MESSAGE_CODE`), or errno when opening the file failed.
    public let code: Int32
    /// libjpeg's message.
    public let message: String
    /// Whether the data had run out before the failure (a truncated file).
    public let hitEndOfData: Bool

    public var description: String { "libjpeg: \(message) (code \(code))" }

    init(_ error: glance_jpeg_error) {
        code = error.code
        switch Int(error.kind) {
        case Int(GLANCE_JPEG_CANNOT_OPEN.rawValue): kind = .cannotOpen
        case Int(GLANCE_JPEG_NEEDS_MEMORY.rawValue): kind = .needsMemory
        case Int(GLANCE_JPEG_UNSUPPORTED.rawValue): kind = .unsupported
        case Int(GLANCE_JPEG_TOO_BIG.rawValue): kind = .tooBig
        default: kind = .corrupt
        }
        hitEndOfData = error.hit_end_of_data != 0
        message = withUnsafeBytes(of: error.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}

/// The header facts of a JPEG that its decoder needs before decoding any pixel.
struct JPEGHeader {
    let width: Int
    let height: Int
    let isProgressive: Bool
    let orientation: ExifOrientation
    /// 1 for gray, 3 for YCbCr or RGB, 4 for CMYK or YCCK.
    let components: Int
    /// CMYK stored inverted (0 = full ink), as Adobe writes it.
    let isCMYKInverted: Bool
}

/// A libjpeg-turbo decompressor reading one file; owns the C decoder and frees it.
///
/// Used from one task only (it holds a C handle), and kept inside one synchronous render call.
final class JPEGFile {
    private let handle: OpaquePointer
    let header: JPEGHeader

    /// Reads the header (and EXIF orientation) of the open `file` without decoding pixels.
    init(file: OpenFile) throws(JPEGError) {
        var raw = glance_jpeg_header()
        var error = glance_jpeg_error()
        guard let handle = glance_jpeg_open(file.descriptor, &raw, &error) else { throw JPEGError(error) }
        self.handle = handle
        var orientation = ExifOrientation.up
        if let exif = raw.exif, raw.exif_length > 0 {
            orientation = ExifOrientation(exifPayload: UnsafeBufferPointer(start: exif, count: raw.exif_length))
        }
        header = JPEGHeader(
            width: Int(raw.width), height: Int(raw.height), isProgressive: raw.progressive != 0,
            orientation: orientation, components: Int(raw.components), isCMYKInverted: raw.cmyk_inverted != 0)
    }

    /// The embedded ICC profile's bytes (its APP2 segments joined in order), or nil.
    func iccProfile() -> [UInt8]? {
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard glance_jpeg_icc_profile(handle, &data, &length) == 1, let data else { return nil }
        defer { free(data) }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    deinit { glance_jpeg_free(handle) }

    /// Starts decoding at 1/`scaleDenominator` of the size; returns the size of the rows to come.
    /// Rows are RGB, or with `rawCMYK` a CMYK file's own CMYK samples (4 bytes a pixel).
    func start(scaleDenominator: Int, maxMemoryBytes: Int, rawCMYK: Bool = false) throws(JPEGError) -> (
        width: Int, height: Int
    ) {
        var width: Int32 = 0
        var height: Int32 = 0
        var error = glance_jpeg_error()
        guard
            glance_jpeg_start(
                handle, Int32(scaleDenominator), maxMemoryBytes, rawCMYK ? 1 : 0, &width, &height, &error)
                == Int32(GLANCE_JPEG_OK.rawValue)
        else { throw JPEGError(error) }
        return (Int(width), Int(height))
    }

    /// Reads up to `maxRows` RGB rows into `rows`; returns how many it read (0 at the end).
    func readRows(into rows: UnsafeMutablePointer<UInt8>, stride: Int, maxRows: Int) throws(JPEGError) -> Int {
        var read: Int32 = 0
        var error = glance_jpeg_error()
        guard
            glance_jpeg_read_rows(handle, rows, stride, Int32(maxRows), &read, &error)
                == Int32(GLANCE_JPEG_OK.rawValue)
        else { throw JPEGError(error) }
        return Int(read)
    }

    /// Warnings libjpeg gave so far (recovered corruption, premature end of data).
    var warningCount: Int { glance_jpeg_warning_count(handle) }

    /// The output row at which the data ran out, or nil if it never did.
    var endOfDataRow: Int? {
        let row = glance_jpeg_end_of_data_row(handle)
        return row < 0 ? nil : row
    }
}
