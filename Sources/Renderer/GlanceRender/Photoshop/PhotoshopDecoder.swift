import Foundation
import GlanceCore

/// Decodes a Photoshop document (PSD or PSB) for the ``RasterPipeline``: the composite image the
/// file stores beside its layers, in every colour mode Photoshop saves (bitmap, gray, duotone and
/// multichannel drawn in gray, indexed, RGB, CMYK, Lab) and every depth (1, 8, 16 and 32 bits,
/// the last linear light), raw or PackBits-compressed, with its transparency where the file marks
/// one. An RGB or gray file's ICC profile is the pipeline's; a CMYK file's converts its rows here
/// as they come (CMYK cannot be resampled as RGB), else the plain formula.
///
/// A file saved without a real composite ("Maximize Compatibility" off: the VersionInfo resource
/// says so, and the composite is blank) is drawn from the thumbnail resource it carries, with a
/// warning; its layers are not flattened (a compositing engine of Photoshop's blend modes and
/// effects is not something to imitate). Without a thumbnail either, it fails in one line.
///
/// Glance's own reader (the composite is planar rows in a documented layout; Debian's loaders,
/// gdk-pixbuf's and libvips', have none): the header is held to the pixel limit before a row is
/// read, the rows are read a batch at a time straight from the file, and it has a fuzz target
/// (`fuzz-psd`).
final class PhotoshopDecoder: RasterDecoder {
    let header: RasterHeader
    private(set) var warnings: [String] = []
    private(set) var conversionDone: ColourConversion?

    private let layout: PhotoshopFile
    private let file: OpenFile
    private let format: String
    private let transforms: ColourTransformCache
    /// The thumbnail resource's decoder, when the composite is not real.
    private let thumbnail: (any RasterDecoder)?
    /// A CMYK file's profile, which converts its rows as they come.
    private var cmykProfile: ColourProfile?

    /// The channels read: the colour's, and the transparency's when there is one.
    private var channelsRead: Int { layout.mode.colourChannels + (layout.hasAlpha ? 1 : 0) }

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        file = request.file
        format = type.displayName
        transforms = colourTransforms
        let layout = try PhotoshopFile(request.file, format: format)
        self.layout = layout
        if !layout.hasRealComposite {
            guard let jpeg = layout.thumbnailJPEG else {
                throw .unsupportedEncoding(
                    format: format,
                    detail:
                        "it was saved without a composite image (Maximize Compatibility off) and without a thumbnail;"
                        + " its layers are not flattened")
            }
            let picture = try EmbeddedPicture.decoder(
                of: jpeg, as: "the file's own thumbnail", request: request, colourTransforms: colourTransforms)
            thumbnail = picture
            header = picture.header
            warnings = [
                "saved without a composite image: drawn from its own "
                    + "\(picture.header.size.width)x\(picture.header.size.height) thumbnail"
            ]
            return
        }
        thumbnail = nil
        var warnings: [String] = []
        var profile: ColourProfile?
        if let bytes = layout.iccProfile {
            do throws(ColourProfileError) {
                profile = try ColourProfile(bytes: bytes, fallbackName: "embedded ICC profile")
            } catch {
                warnings.append(error.warning)
            }
        }
        if layout.mode == .cmyk, let cmyk = profile {
            profile = nil
            do throws(ColourProfileError) {
                guard cmyk.space == .cmyk else { throw .wrongSpace(profile: cmyk.name, image: "CMYK") }
                guard cmyk.isUsableClass else { throw .unsupportedClass(profile: cmyk.name) }
                conversionDone = ColourConversion(
                    profile: cmyk.name,
                    transformReused: try colourTransforms.withTransform(for: cmyk, pixels: .cmyk(inverted: true)) {
                        _ in
                    })
                cmykProfile = cmyk
            } catch {
                warnings.append(error.warning)
            }
        }
        if [.duotone, .multichannel].contains(layout.mode) {
            warnings.append("a \(layout.mode == .duotone ? "duotone" : "multichannel") file: drawn in gray")
        }
        if [.lab, .cmyk].contains(layout.mode) || layout.depth == 32 { profile = nil }
        self.warnings = warnings
        header = RasterHeader(
            size: PixelSize(width: layout.width, height: layout.height), profile: profile,
            isGray: layout.mode.colourChannels == 1 && layout.mode != .indexed)
    }

    func plan(for target: PixelSize) -> RasterPlan {
        thumbnail?.plan(for: target) ?? RasterPlan(size: header.size)
    }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        if let thumbnail { return try thumbnail.start(plan) }
        return RasterRows(size: header.size, channels: layout.hasAlpha ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        if let thumbnail { return try thumbnail.read(into: rows) }
        let reader = try PhotoshopRows(layout, file: file, channels: channelsRead, format: format)
        let (width, height) = (layout.width, layout.height)
        let outChannels = layout.hasAlpha ? 4 : 3
        let batch = max(1, min(height, (1 << 20) / max(1, layout.rowBytes * channelsRead)))
        var out = [UInt8](repeating: 0, count: width * outChannels * batch)
        var cmyk = [UInt8](repeating: 0, count: cmykProfile == nil ? 0 : width * 4 * batch)
        var row = 0
        while row < height {
            let count = min(batch, height - row)
            let planes = try reader.read(rows: row, count: count)
            try convert(planes, rows: count, into: &out, cmyk: &cmyk)
            out.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * outChannels, count: count) }
            row += count
        }
    }

    /// Interleaves `count` rows of `planes` (one buffer a channel, `rowBytes` a row) into 8-bit
    /// RGB or RGBA in `out`.
    private func convert(_ planes: [[UInt8]], rows count: Int, into out: inout [UInt8], cmyk: inout [UInt8])
        throws(ThumbnailError)
    {
        let (width, depth, rowBytes) = (layout.width, layout.depth, layout.rowBytes)
        let outChannels = layout.hasAlpha ? 4 : 3
        let mode = layout.mode
        let srgb = depth == 32 ? SRGBTable.shared : nil
        /// Channel `c`'s sample `x` of row `y`, as 8 bits (16 bits: the high byte; 32: linear
        /// light encoded as sRGB; 1: white for 0).
        func sample(_ c: Int, _ y: Int, _ x: Int) -> UInt8 {
            let base = y * rowBytes
            switch depth {
            case 1: return planes[c][base + x / 8] & (0x80 >> (x % 8)) == 0 ? 255 : 0
            case 8: return planes[c][base + x]
            case 16: return planes[c][base + 2 * x]
            default:
                let bits = UInt32(planes[c].bigEndian(at: base + 4 * x, count: 4))
                return srgb!.encode(Float(bitPattern: bits))
            }
        }
        for y in 0..<count {
            for x in 0..<width {
                let at = (y * width + x) * outChannels
                switch mode {
                case .rgb:
                    for c in 0..<3 { out[at + c] = sample(c, y, x) }
                case .indexed:
                    let index = Int(sample(0, y, x))
                    for c in 0..<3 { out[at + c] = layout.palette[c * 256 + index] }
                case .cmyk:
                    if cmykProfile != nil {
                        for c in 0..<4 { cmyk[(y * width + x) * 4 + c] = sample(c, y, x) }
                    } else {
                        // Stored inverted (255: no ink): the plain formula.
                        let k = Int(sample(3, y, x))
                        for c in 0..<3 { out[at + c] = UInt8(Int(sample(c, y, x)) * k / 255) }
                    }
                case .lab:
                    let (r, g, b) = LabToSRGB.convert(
                        l: Double(sample(0, y, x)) * 100 / 255, a: Double(sample(1, y, x)) - 128,
                        b: Double(sample(2, y, x)) - 128)
                    (out[at], out[at + 1], out[at + 2]) = (r, g, b)
                default:
                    let gray = sample(0, y, x)
                    (out[at], out[at + 1], out[at + 2]) = (gray, gray, gray)
                }
                if layout.hasAlpha { out[at + 3] = sample(mode.colourChannels, y, x) }
            }
        }
        guard let profile = cmykProfile else { return }
        let rgb = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 3 * count)
        defer { rgb.deallocate() }
        do throws(ColourProfileError) {
            _ = try transforms.withTransform(for: profile, pixels: .cmyk(inverted: true)) { transform in
                cmyk.withUnsafeBufferPointer { input in
                    transform.apply(
                        input: input.baseAddress!, inputStride: width * 4, output: rgb, outputStride: width * 3,
                        width: width, rows: count)
                }
            }
        } catch {
            throw .outOfMemory(detail: "cannot rebuild the colour transform of \"\(profile.name)\"")
        }
        for pixel in 0..<(width * count) {
            for c in 0..<3 { out[pixel * outChannels + c] = rgb[pixel * 3 + c] }
        }
    }
}

/// The composite's rows of the first channels, read from the file a batch at a time: raw rows
/// by their place, PackBits rows by the table of their lengths that leads the data.
struct PhotoshopRows {
    private let layout: PhotoshopFile
    private let file: OpenFile
    private let channels: Int
    private let format: String
    /// For PackBits: where each of the channels' rows starts (channel by channel), and one past
    /// the last.
    private let starts: [Int64]

    init(_ layout: PhotoshopFile, file: OpenFile, channels: Int, format: String) throws(ThumbnailError) {
        self.layout = layout
        self.file = file
        self.channels = channels
        self.format = format
        guard layout.compression == .packBits else {
            starts = []
            return
        }
        let lengthSize = layout.isLarge ? 4 : 2
        let entries = layout.channels * layout.height
        let table = try FileReader.read(
            file, exactly: channels * layout.height * lengthSize, at: Int(layout.compositeStart), format: format)
        var starts = [Int64](repeating: 0, count: channels * layout.height + 1)
        starts[0] = layout.compositeStart + Int64(entries * lengthSize)
        // A PackBits row is at most twice its length (every byte a literal run of one, as some
        // encoders write), plus a header.
        let longest = 2 * layout.rowBytes + 2
        for index in 0..<(channels * layout.height) {
            let length = table.bigEndian(at: index * lengthSize, count: lengthSize)
            guard length <= longest else {
                throw .corrupt(format: format, detail: "a compressed row claims \(length) bytes")
            }
            starts[index + 1] = starts[index] + Int64(length)
        }
        self.starts = starts
    }

    /// `count` rows from `first` of each channel read, uncompressed: one buffer a channel.
    func read(rows first: Int, count: Int) throws(ThumbnailError) -> [[UInt8]] {
        let rowBytes = layout.rowBytes
        var planes: [[UInt8]] = []
        for channel in 0..<channels {
            let index = channel * layout.height + first
            if layout.compression == .raw {
                let at = layout.compositeStart + Int64(index) * Int64(rowBytes)
                planes.append(try FileReader.read(file, exactly: count * rowBytes, at: Int(at), format: format))
                continue
            }
            let packed = try FileReader.read(
                file, exactly: Int(starts[index + count] - starts[index]), at: Int(starts[index]), format: format)
            var plane = [UInt8](repeating: 0, count: count * rowBytes)
            for row in 0..<count {
                let from = Int(starts[index + row] - starts[index])
                let to = Int(starts[index + row + 1] - starts[index])
                guard Self.unpack(packed[from..<to], into: &plane, at: row * rowBytes, count: rowBytes) else {
                    throw .corrupt(format: format, detail: "a compressed row does not make \(rowBytes) bytes")
                }
            }
            planes.append(plane)
        }
        return planes
    }

    /// Unpacks PackBits `bytes` into `count` bytes of `out` from `offset`; false when they do not
    /// make exactly that many.
    static func unpack(_ bytes: ArraySlice<UInt8>, into out: inout [UInt8], at offset: Int, count: Int) -> Bool {
        var (at, filled) = (bytes.startIndex, 0)
        while at < bytes.endIndex, filled < count {
            let header = Int(Int8(bitPattern: bytes[at]))
            at += 1
            if header >= 0 {
                let length = header + 1
                guard at + length <= bytes.endIndex, filled + length <= count else { return false }
                for i in 0..<length { out[offset + filled + i] = bytes[at + i] }
                at += length
                filled += length
            } else if header > -128 {
                let length = 1 - header
                guard at < bytes.endIndex, filled + length <= count else { return false }
                for i in 0..<length { out[offset + filled + i] = bytes[at] }
                at += 1
                filled += length
            }
        }
        return filled == count
    }
}

/// Linear light to sRGB's 8-bit code, by a table of 4096 steps in the square root of the light
/// (a 32-bit Photoshop file's samples are linear).
final class SRGBTable: Sendable {
    static let shared = SRGBTable()
    private let codes: [UInt8]

    private init() {
        codes = (0..<4096).map { step in
            let linear = pow(Double(step) / 4095, 2)
            let encoded = linear <= 0.003_130_8 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return UInt8((encoded * 255).rounded())
        }
    }

    /// `linear` (clipped to 0...1) as sRGB's code.
    func encode(_ linear: Float) -> UInt8 {
        guard linear.isFinite, linear > 0 else { return 0 }
        return codes[Int((min(linear, 1).squareRoot() * 4095).rounded())]
    }
}

/// CIELAB (D50, as Photoshop's Lab mode) to sRGB's 8-bit codes.
enum LabToSRGB {
    static func convert(l: Double, a: Double, b: Double) -> (UInt8, UInt8, UInt8) {
        func inverse(_ t: Double) -> Double { t > 6.0 / 29 ? t * t * t : 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0 / 29) }
        let fy = (l + 16) / 116
        let (x, y, z) = (0.9642 * inverse(fy + a / 500), inverse(fy), 0.8249 * inverse(fy - b / 200))
        // XYZ (D50) to linear sRGB (D65), Bradford-adapted.
        let linear = [
            3.1338561 * x - 1.6168667 * y - 0.4906146 * z,
            -0.9787684 * x + 1.9161415 * y + 0.0334540 * z,
            0.0719453 * x - 0.2289914 * y + 1.4052427 * z,
        ]
        let codes = linear.map { value -> UInt8 in
            let v = min(max(value, 0), 1)
            let encoded = v <= 0.003_130_8 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
            return UInt8((encoded * 255).rounded())
        }
        return (codes[0], codes[1], codes[2])
    }
}
