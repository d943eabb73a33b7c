import GlanceCore

/// A Photoshop document's layout, read from its header and the sections before its pixels: what
/// ``PhotoshopDecoder`` needs to read the composite image. Nothing of the layers is read but
/// their section's length and layer count.
///
/// The file: a 26-byte header (`8BPS`, the version: 1 for PSD, 2 for PSB; the channels, the
/// height, the width, the depth and the colour mode), then three sections each led by its length
/// (the colour mode's data: an indexed file's palette; the image resources; the layers and
/// masks, whose length is 8 bytes in a PSB), then the composite: its compression, then each
/// channel's rows in turn (planar).
struct PhotoshopFile {
    /// The colour modes Glance draws.
    enum Mode: Int {
        case bitmap = 0, gray = 1, indexed = 2, rgb = 3, cmyk = 4, multichannel = 7, duotone = 8, lab = 9

        /// The channels that make a pixel's colour (before any alpha).
        var colourChannels: Int {
            switch self {
            case .bitmap, .gray, .indexed, .multichannel, .duotone: return 1
            case .rgb, .lab: return 3
            case .cmyk: return 4
            }
        }
    }

    /// How the composite's rows are stored.
    enum Compression: Int {
        case raw = 0, packBits = 1
    }

    let isLarge: Bool
    let channels: Int
    let width: Int
    let height: Int
    let depth: Int
    let mode: Mode
    /// An indexed file's palette: 256 reds, then greens, then blues.
    let palette: [UInt8]
    /// The ICC profile resource (1039), if any.
    let iccProfile: [UInt8]?
    /// Whether the composite holds the picture: false where the VersionInfo resource (1057) says
    /// the file was saved without it ("Maximize Compatibility" off).
    let hasRealComposite: Bool
    /// The JPEG of the thumbnail resource (1036), if any.
    let thumbnailJPEG: [UInt8]?
    /// Whether the first channel after the colour's is the composite's transparency: the layer
    /// count is negative (Photoshop's mark for it).
    let hasAlpha: Bool
    /// Where the composite's pixel data starts (after its compression field).
    let compositeStart: Int64
    let compression: Compression

    /// The most bytes of image resources read (profiles and thumbnails are a few hundred KB).
    static let resourcesLimit = 16 << 20

    /// Reads `file`'s layout; throws a one-line reason where it is cut short or makes no sense.
    init(_ file: OpenFile, format: String) throws(ThumbnailError) {
        func read(_ count: Int, at offset: Int64) throws(ThumbnailError) -> [UInt8] {
            try FileReader.read(file, exactly: count, at: Int(offset), format: format)
        }
        let header = try read(26, at: 0)
        guard header.starts(with: Array("8BPS".utf8)), [1, 2].contains(header.bigEndian(at: 4, count: 2)) else {
            throw .corrupt(format: format, detail: "not a Photoshop header")
        }
        isLarge = header.bigEndian(at: 4, count: 2) == 2
        channels = header.bigEndian(at: 12, count: 2)
        height = header.bigEndian(at: 14, count: 4)
        width = header.bigEndian(at: 18, count: 4)
        depth = header.bigEndian(at: 22, count: 2)
        let modeNumber = header.bigEndian(at: 24, count: 2)
        guard let mode = Mode(rawValue: modeNumber) else {
            throw .unsupportedEncoding(format: format, detail: "colour mode \(modeNumber)")
        }
        self.mode = mode
        let maxSide = isLarge ? 300_000 : 30_000
        guard (1...56).contains(channels), (1...maxSide).contains(width), (1...maxSide).contains(height),
            [1, 8, 16, 32].contains(depth), channels >= mode.colourChannels, (depth == 1) == (mode == .bitmap)
        else {
            throw .corrupt(
                format: format,
                detail: "its header says \(width)x\(height), \(channels) channels of \(depth) bits, mode \(modeNumber)")
        }
        var offset: Int64 = 26
        // The colour mode's data: an indexed file's palette.
        let colourLength = try read(4, at: offset).bigEndian(at: 0, count: 4)
        offset += 4
        if mode == .indexed {
            guard colourLength >= 768 else { throw .corrupt(format: format, detail: "its palette is missing") }
            palette = try read(768, at: offset)
        } else {
            palette = []
        }
        offset += Int64(colourLength)
        // The image resources.
        let resourcesLength = try read(4, at: offset).bigEndian(at: 0, count: 4)
        offset += 4
        guard resourcesLength <= Self.resourcesLimit else {
            throw .corrupt(format: format, detail: "its image resources claim \(resourcesLength) bytes")
        }
        let resources = Self.resources(try read(resourcesLength, at: offset))
        offset += Int64(resourcesLength)
        iccProfile = resources[1039]
        hasRealComposite = resources[1057].map { $0.count < 5 || $0[4] != 0 } ?? true
        thumbnailJPEG = resources[1036].flatMap {
            $0.count > 28 && $0.bigEndian(at: 0, count: 4) == 1 ? Array($0[28...]) : nil
        }
        // The layers and masks: only the layer count's sign is read.
        let lengthSize = isLarge ? 8 : 4
        let layersLength = try read(lengthSize, at: offset).bigEndian(at: 0, count: lengthSize)
        offset += Int64(lengthSize)
        if layersLength >= lengthSize + 2 {
            let layerInfo = try read(lengthSize + 2, at: offset)
            let count = Int16(truncatingIfNeeded: layerInfo.bigEndian(at: lengthSize, count: 2))
            hasAlpha = count < 0 && channels > mode.colourChannels
        } else {
            hasAlpha = false
        }
        guard layersLength <= Int(Int64.max / 2) - Int(offset) else { throw .truncated(format: format) }
        offset += Int64(layersLength)
        let compressionNumber = try read(2, at: offset).bigEndian(at: 0, count: 2)
        guard let compression = Compression(rawValue: compressionNumber) else {
            throw .unsupportedEncoding(
                format: format, detail: "its composite is compressed with method \(compressionNumber) (ZIP)")
        }
        self.compression = compression
        compositeStart = offset + 2
    }

    /// The image resources by their ID (`8BIM`, the ID, a padded Pascal name, a length and the
    /// data padded to even): the ones a malformed entry leaves unread are absent.
    static func resources(_ bytes: [UInt8]) -> [Int: [UInt8]] {
        var found: [Int: [UInt8]] = [:]
        var at = 0
        while at + 12 <= bytes.count, bytes[at..<at + 4].elementsEqual("8BIM".utf8) {
            let id = bytes.bigEndian(at: at + 4, count: 2)
            let nameLength = Int(bytes[at + 6])
            at += 6 + ((nameLength + 2) & ~1)
            let length = bytes.bigEndian(at: at, count: 4)
            at += 4
            guard length <= bytes.count - at else { break }
            found[id] = Array(bytes[at..<at + length])
            at += (length + 1) & ~1
        }
        return found
    }

    /// The bytes of one row of one channel, uncompressed.
    var rowBytes: Int { (width * depth + 7) / 8 }
}
