import GlanceCore

/// Decodes Targa (TGA) pictures for the ``RasterPipeline``: true-colour (15, 16, 24 and 32 bits),
/// colour-mapped (8-bit indices into a map of 15 to 32-bit entries) and gray (8 bits, or 8 with
/// 8 of alpha), stored or run-length encoded, in every origin (rows bottom or top first, pixels
/// left or right first), with alpha where the header gives it bits (and the TGA 2.0 extension
/// area, when there is one, does not say the alpha is not to be used).
///
/// Glance's own reader, kept over gdk-pixbuf's Targa loader for speed and memory: that loader
/// decodes the whole picture, pixel by pixel, before a row can be scaled (and drew a 16-bit
/// picture's alpha bit opaque, and alpha the extension area marks unused clear). Measured on a
/// 4000x3000 run-length encoded Targa (35 MB), `glance thumbnail` of one file, three runs each
/// in turn: 0.46-0.54 s through gdk-pixbuf, 0.15-0.19 s here; vipsthumbnail, through
/// ImageMagick, 0.71-1.0 s. The rows
/// are made a batch at a time in the order the pipeline takes them, top first: a picture stored
/// bottom first is read from its last row up (a run-length encoded one through an index of where
/// each row starts, made in one pass over its packets, which also finds a cut file before a row
/// is drawn). The header is held to the pixel limit before a pixel is read; it has a fuzz target
/// (`fuzz-bitmap`).
final class TargaDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    private let layout: TargaLayout
    /// Where each stored row's pixels start in a run-length encoded picture; empty for a stored one.
    private var rowStarts: [TargaPackets] = []

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        data = try FileReader.readWhole(of: request.file)
        layout = try TargaLayout(data, format: format)
        header = RasterHeader(size: layout.size, isGray: layout.isGray)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        let (width, height) = (layout.size.width, layout.size.height)
        if layout.isRunLength {
            var packets = TargaPackets(at: layout.pixelStart)
            rowStarts.reserveCapacity(height)
            for _ in 0..<height {
                rowStarts.append(packets)
                guard packets.skip(width, pixelBytes: layout.pixelBytes, in: data) else {
                    throw .truncated(format: format)
                }
            }
        } else if data.count - layout.pixelStart < width * layout.pixelBytes * height {
            throw .truncated(format: format)
        }
        return RasterRows(size: header.size, channels: layout.hasAlpha ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height) = (layout.size.width, layout.size.height)
        let storedBytes = width * layout.pixelBytes
        var expanded = [UInt8](repeating: 0, count: layout.isRunLength ? storedBytes : 0)
        try rows.pushRows(width: width, height: height, channels: rows.channels) { y, out in
            let stored = layout.isTopFirst ? y : height - 1 - y
            data.withUnsafeBufferPointer { file in
                if layout.isRunLength {
                    var packets = rowStarts[stored]
                    expanded.withUnsafeMutableBufferPointer { row in
                        packets.expand(width, pixelBytes: layout.pixelBytes, from: file, into: row.baseAddress!)
                    }
                    expanded.withUnsafeBufferPointer { layout.convert(row: $0.baseAddress!, into: out) }
                } else {
                    layout.convert(row: file.baseAddress! + layout.pixelStart + stored * storedBytes, into: out)
                }
            }
        }
    }
}

/// What a Targa header says: the picture's kind, size and origin, its colour map, and where its
/// pixels start; and how a stored row of its pixels becomes the pipeline's RGB or RGBA.
struct TargaLayout {
    /// The picture's size.
    let size: PixelSize
    /// Bytes a stored pixel (or colour-map index).
    let pixelBytes: Int
    /// Whether the pixels are in run-length packets (types 9 to 11).
    let isRunLength: Bool
    /// Whether the first stored row is the top one (descriptor bit 5).
    let isTopFirst: Bool
    /// Whether a stored row's first pixel is its right one (descriptor bit 4).
    let isRightFirst: Bool
    /// Whether the picture's pixels are gray (type 3 or 11).
    let isGray: Bool
    /// Whether the pixels (or the colour map's entries) carry alpha that is used.
    let hasAlpha: Bool
    /// Whether that alpha was stored premultiplied (the extension area's attributes type 4).
    let isPremultiplied: Bool
    /// Where the pixels start: after the header, the picture's ID and the colour map.
    let pixelStart: Int
    /// The colour map's entries as RGBA, indexed by the stored index (entries before the map's
    /// first are black); empty for a picture without one.
    private let colours: [UInt8]
    private let depth: Int

    /// Reads the header of `data`, a whole Targa file; `format` names it in errors.
    init(_ data: [UInt8], format: String) throws(ThumbnailError) {
        guard data.count >= 18 else { throw .truncated(format: format) }
        let type = Int(data[2])
        let mapType = Int(data[1])
        let (mapFirst, mapLength, mapDepth) = (
            data.littleEndian(at: 3, count: 2), data.littleEndian(at: 5, count: 2), Int(data[7])
        )
        size = PixelSize(width: data.littleEndian(at: 12, count: 2), height: data.littleEndian(at: 14, count: 2))
        depth = Int(data[16])
        let descriptor = data[17]
        let alphaBits = Int(descriptor & 0x0F)
        isTopFirst = descriptor & 0x20 != 0
        isRightFirst = descriptor & 0x10 != 0
        isRunLength = type >= 9
        isGray = type == 3 || type == 11
        let mapped = type == 1 || type == 9
        guard size.width > 0, size.height > 0 else {
            throw .corrupt(format: format, detail: "its header gives no picture")
        }
        switch (mapped, isGray, depth) {
        case (true, _, 8) where mapType == 1 && [15, 16, 24, 32].contains(mapDepth): break
        case (false, true, 8), (false, true, 16): break
        case (false, false, 15), (false, false, 16), (false, false, 24), (false, false, 32): break
        default:
            let map = mapped ? " into a map of \(mapDepth)-bit entries" : ""
            throw .corrupt(format: format, detail: "type \(type) with \(depth)-bit pixels\(map) is not a Targa layout")
        }
        pixelBytes = (depth + 7) / 8
        let mapStart = 18 + Int(data[0])
        let mapBytes = mapType == 1 ? mapLength * ((mapDepth + 7) / 8) : 0
        pixelStart = mapStart + mapBytes
        guard data.count >= pixelStart else { throw .truncated(format: format) }
        let alphaDepth = mapped ? mapDepth : depth
        var alpha = alphaBits > 0 && (alphaDepth == 32 || alphaDepth == 16 || (isGray && depth == 16))
        var premultiplied = false
        if alpha, let attributes = Self.alphaAttributes(data) {
            // 0 to 2: no alpha, or alpha that means nothing; 3: alpha; 4: premultiplied alpha.
            alpha = attributes >= 3
            premultiplied = attributes == 4
        }
        hasAlpha = alpha
        isPremultiplied = premultiplied
        colours =
            mapped
            ? Self.colourMap(
                data[mapStart..<pixelStart], first: mapFirst, length: mapLength, depth: mapDepth, alpha: alpha)
            : []
    }

    /// The TGA 2.0 extension area's attributes type, when the file ends with a TGA 2.0 footer whose
    /// extension area holds one.
    private static func alphaAttributes(_ data: [UInt8]) -> UInt8? {
        let footer = data.count - 26
        guard footer >= 18, data[(footer + 8)...].elementsEqual(Array("TRUEVISION-XFILE.".utf8) + [0]) else {
            return nil
        }
        let extensionArea = data.littleEndian(at: footer, count: 4)
        guard extensionArea >= 18, extensionArea + 495 <= footer,
            data.littleEndian(at: extensionArea, count: 2) >= 495
        else { return nil }
        return data[extensionArea + 494]
    }

    /// A colour map of `length` entries of `depth` bits from `bytes`, as RGBA for every 8-bit
    /// index (an index before `first` or past the map is black).
    private static func colourMap(_ bytes: ArraySlice<UInt8>, first: Int, length: Int, depth: Int, alpha: Bool)
        -> [UInt8]
    {
        var colours = [UInt8](repeating: 0, count: 256 * 4)
        let entryBytes = (depth + 7) / 8
        for index in 0..<256 where index >= first && index - first < length {
            let at = bytes.startIndex + (index - first) * entryBytes
            guard at + entryBytes <= bytes.endIndex else { break }
            let entry = Array(bytes[at..<(at + entryBytes)])
            entry.withUnsafeBufferPointer { pixel in
                colours.withUnsafeMutableBufferPointer { out in
                    TargaLayout.trueColour(
                        pixel.baseAddress!, depth: depth, alpha: alpha, into: out.baseAddress! + index * 4)
                }
            }
            if !alpha { colours[index * 4 + 3] = 255 }
        }
        return colours
    }

    /// One true-colour pixel of `depth` bits (BGR 5-5-5 with an alpha bit, BGR, BGRA) at `pixel`
    /// as RGBA at `out`; alpha 255 when not `alpha`.
    @inline(__always)
    private static func trueColour(
        _ pixel: UnsafePointer<UInt8>, depth: Int, alpha: Bool, into out: UnsafeMutablePointer<UInt8>
    ) {
        switch depth {
        case 15, 16:
            let value = Int(pixel[0]) | Int(pixel[1]) << 8
            func widen(_ five: Int) -> UInt8 { UInt8(five << 3 | five >> 2) }
            out[0] = widen(value >> 10 & 31)
            out[1] = widen(value >> 5 & 31)
            out[2] = widen(value & 31)
            out[3] = alpha && value & 0x8000 == 0 ? 0 : 255
        default:
            out[0] = pixel[2]
            out[1] = pixel[1]
            out[2] = pixel[0]
            out[3] = alpha && depth == 32 ? pixel[3] : 255
        }
    }

    /// Converts one stored row at `row` (``pixelBytes`` a pixel) into `out`, RGB or RGBA as
    /// ``hasAlpha`` says, left pixel first.
    func convert(row: UnsafePointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) {
        let width = size.width
        let channels = hasAlpha ? 4 : 3
        var rgba: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)
        colours.withUnsafeBufferPointer { colours in
            withUnsafeMutableBytes(of: &rgba) { scratch in
                let pixel = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    let source = row + (isRightFirst ? width - 1 - x : x) * pixelBytes
                    let target = out.baseAddress! + x * channels
                    if !colours.isEmpty {
                        let entry = colours.baseAddress! + Int(source[0]) * 4
                        target.update(from: entry, count: channels)
                        continue
                    }
                    if isGray {
                        target.update(repeating: source[0], count: 3)
                        if channels == 4 { target[3] = source[1] }
                        continue
                    }
                    if depth == 24 && channels == 3 {
                        (target[0], target[1], target[2]) = (source[2], source[1], source[0])
                        continue
                    }
                    TargaLayout.trueColour(source, depth: depth, alpha: hasAlpha, into: pixel)
                    if isPremultiplied, pixel[3] > 0, pixel[3] < 255 {
                        for channel in 0..<3 {
                            pixel[channel] = UInt8(
                                min(255, (Int(pixel[channel]) * 255 + Int(pixel[3]) / 2) / Int(pixel[3])))
                        }
                    }
                    target.update(from: pixel, count: channels)
                }
            }
        }
    }
}

/// Where a run-length encoded Targa's reading stands: the next packet's header, or the rest of
/// the packet under way. A value, so the place where each row starts can be kept and read from
/// again (a packet may run on into the next row, though the format says it should not).
struct TargaPackets {
    /// Where the next byte to read is: a packet's header, or the next stored pixel of a raw one.
    private var at: Int
    /// Pixels left in the packet under way.
    private var left = 0
    /// Where the repeated pixel of a run packet is; nil in a raw packet.
    private var repeated: Int?

    init(at start: Int) { at = start }

    /// Passes over `count` pixels of `pixelBytes` in `data`; false when the file ends first.
    mutating func skip(_ count: Int, pixelBytes: Int, in data: [UInt8]) -> Bool {
        var count = count
        while count > 0 {
            if left == 0 {
                guard at < data.count else { return false }
                startPacket(data[at], pixelBytes: pixelBytes)
                // A run's pixel must be whole in the file (``at`` is past it now).
                guard at <= data.count else { return false }
            }
            let taken = min(left, count)
            if repeated == nil {
                guard data.count - at >= taken * pixelBytes else { return false }
                at += taken * pixelBytes
            }
            left -= taken
            count -= taken
        }
        return true
    }

    /// Writes the next `count` stored pixels of `pixelBytes` into `row`; the packets were checked
    /// to lie inside `data` by ``skip(_:pixelBytes:in:)``.
    mutating func expand(
        _ count: Int, pixelBytes: Int, from data: UnsafeBufferPointer<UInt8>, into row: UnsafeMutablePointer<UInt8>
    ) {
        var written = 0
        while written < count {
            if left == 0 { startPacket(data[at], pixelBytes: pixelBytes) }
            let taken = min(left, count - written)
            if let repeated {
                for index in 0..<taken {
                    (row + (written + index) * pixelBytes).update(from: data.baseAddress! + repeated, count: pixelBytes)
                }
            } else {
                (row + written * pixelBytes).update(from: data.baseAddress! + at, count: taken * pixelBytes)
                at += taken * pixelBytes
            }
            left -= taken
            written += taken
        }
    }

    /// Reads the packet header `byte` at ``at``: a run of one pixel (high bit) or raw pixels, 1 to 128.
    private mutating func startPacket(_ byte: UInt8, pixelBytes: Int) {
        left = Int(byte & 0x7F) + 1
        at += 1
        if byte & 0x80 != 0 {
            repeated = at
            at += pixelBytes
        } else {
            repeated = nil
        }
    }
}
