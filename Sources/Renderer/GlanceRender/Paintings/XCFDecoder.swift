internal import CColour
internal import CCompression
import GlanceCore

/// Decodes GIMP's own files (`.xcf`) for the ``RasterPipeline``: the image's visible layers
/// composed over a clear canvas, each at its offset and opacity, in normal mode or in one of the
/// separable modes (multiply, screen, overlay, ...: ``XCFBlend``). Versions 0 to 11 and later
/// (64-bit offsets from 11), RGB, gray and indexed images in every precision GIMP saves
/// (``XCFPrecision``: 8 to 32-bit integers, 16 to 64-bit floating point, linear or sRGB-encoded),
/// layers with or without alpha, tiles stored, run-length encoded or zlib-compressed; the file
/// itself may be kept gzip, bzip2 or xz-compressed, as GIMP saves it (``DecompressedFile``). A
/// layer in a group is drawn only when every group above it is visible, at its own opacity times
/// theirs (a group's own mode is not applied).
///
/// A layer's mask is applied (its gray multiplies the layer's alpha) unless the layer says not to.
/// What is not drawn the way GIMP draws it is said in a warning: layers in a mode that is not
/// separable (hue, colour, ...) or that changes alpha are drawn as normal ones. Every precision is
/// composed in 8-bit sRGB, linear values through the sRGB curve: an 8-bit linear image is not
/// drawn dark.
///
/// Glance's own reader, as no library here reads XCF (gdk-pixbuf has no loader; ImageMagick 6
/// reads versions 0 to 3 stored or run-length encoded, which its tests compare with): the file is
/// read a structure at a time, never whole (a compressed one is decompressed first, whole, into a
/// memory file); the canvas is held to the pixel limit before a tile is decoded, and only the
/// tiles that fall on the canvas are read.
final class XCFDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String]

    private let file: OpenFile
    private let format: String
    private let pointerSize: Int
    private let compression: UInt8
    private let baseType: Int
    private let colourMap: [UInt8]
    private let precision: XCFPrecision
    /// `glance_colour_linear_to_srgb_table`'s, for linear precisions (else empty).
    private let srgbTable: [UInt8]
    /// The layers to draw, bottom first, their groups' opacities folded into theirs.
    private let layers: [XCFLayer]

    /// `gimp xcf `.
    static let signature = Array("gimp xcf ".utf8)
    static let tileSide = 64
    /// The most layers, and properties of one item, read.
    static let itemLimit = 100_000
    /// The longest side of a layer (GIMP's own limit is 524,288).
    static let sideLimit = 1 << 20
    /// The most a compressed file (`.xcf.gz`, `.xcf.bz2`, `.xcf.xz`) may decompress to.
    static let decompressedLimit = DecompressedFile.documentLimit

    /// Whether `input` is a GIMP file kept compressed whole: gzip, xz or Zstandard told by its
    /// decompressed start; bzip2 by its name alone, as its start comes only with its whole first
    /// block (up to 900 kB, which sniffing every `.bz2` file would decode).
    static func isCompressed(_ input: SniffInput) -> Bool {
        if input.prefix.starts(with: Array("BZh".utf8)) {
            return input.named == .gimpImage || input.namedUnderCompression == .gimpImage
        }
        guard DecompressedFile.isCompressed(input.prefix) else { return false }
        return InflatedStart.of(input.prefix[...], limit: signature.count).starts(with: signature)
    }

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let format = type.displayName
        let file = try DecompressedFile.of(request.file, limit: Self.decompressedLimit, format: format)
        (self.format, self.file) = (format, file)
        let head = try FileReader.read(file, count: 30, at: 0)
        guard head.count >= 26, head.starts(with: Self.signature), head[13] == 0 else {
            throw .truncated(format: format)
        }
        let tag = String(decoding: head[9..<13], as: UTF8.self)
        let version: Int
        if tag == "file" {
            version = 0
        } else if tag.first == "v", let number = Int(tag.dropFirst()), number >= 0 {
            version = number
        } else {
            throw .unsupportedEncoding(
                format: format, detail: "a version Glance does not know (\(tag.filter(\.isASCII)))")
        }
        pointerSize = version >= 11 ? 8 : 4
        let (width, height) = (head.bigEndian(at: 14, count: 4), head.bigEndian(at: 18, count: 4))
        baseType = head.bigEndian(at: 22, count: 4)
        guard (1...Self.sideLimit).contains(width), (1...Self.sideLimit).contains(height), baseType <= 2 else {
            throw .corrupt(format: format, detail: "its header says \(width)x\(height), base type \(baseType)")
        }
        var at = 26
        var precision = XCFPrecision.eightBitGamma
        if version >= 4 {
            guard head.count >= 30 else { throw .truncated(format: format) }
            let code = head.bigEndian(at: 26, count: 4)
            guard let named = XCFPrecision(code: code, version: version) else {
                throw .unsupportedEncoding(format: format, detail: "a precision Glance does not know (\(code))")
            }
            guard baseType != 2 || named.isEightBitGamma else {
                throw .corrupt(format: format, detail: "an indexed image of \(named)")
            }
            (precision, at) = (named, 30)
        }
        self.precision = precision
        var table: [UInt8] = []
        if precision.isLinear {
            table = [UInt8](repeating: 0, count: 65536)
            glance_colour_linear_to_srgb_table(&table)
        }
        srgbTable = table
        var compression: UInt8 = 0
        var colourMap: [UInt8] = []
        let reader = Reader(file: file, format: format, pointerSize: pointerSize, precision: precision)
        try reader.properties(from: &at) { (kind, payload, length) throws(ThumbnailError) in
            switch kind {
            case 1:  // the colour map: a count, then three bytes a colour
                let count = try reader.integer(at: payload)
                guard (0...256).contains(count), length >= 4 + 3 * count else {
                    throw .corrupt(format: format, detail: "a colour map of \(count) colours")
                }
                colourMap = try FileReader.read(file, exactly: 3 * count, at: payload + 4, format: format)
            case 17:  // compression
                compression = try FileReader.read(file, exactly: 1, at: payload, format: format)[0]
            default: break
            }
        }
        guard compression <= 2 else {
            throw .unsupportedEncoding(format: format, detail: "tiles compressed in way \(compression)")
        }
        self.compression = compression
        self.colourMap = colourMap
        var pointers: [Int] = []
        while true {
            let pointer = try reader.pointer(at: at)
            at += pointerSize
            if pointer == 0 { break }
            guard pointers.count < Self.itemLimit else { throw .corrupt(format: format, detail: "too many layers") }
            pointers.append(pointer)
        }
        var found: [XCFLayer] = []
        var groups: [[Int]: (visible: Bool, opacity: Int)] = [:]
        var otherModes = false
        for pointer in pointers {
            let description = try reader.layer(at: pointer)
            if description.isGroup {
                groups[description.path] = (description.visible, description.opacity)
                continue
            }
            otherModes = otherModes || !XCFBlend.isDrawn(mode: description.mode)
            // Its groups, from the outermost: every one visible, their opacities multiplied.
            var (visible, opacity) = (description.visible, description.opacity)
            for depth in stride(from: 1, to: description.path.count, by: 1) {
                guard let group = groups[Array(description.path.prefix(depth))] else { continue }
                visible = visible && group.visible
                opacity = opacity * group.opacity / 255
            }
            guard visible, opacity > 0 else { continue }
            var drawn = description
            drawn.opacity = opacity
            found.append(drawn)
        }
        layers = found.reversed()
        var warnings: [String] = []
        if otherModes {
            warnings.append(
                "layers in a mode other than normal and the separable ones (hue, saturation, colour, value,"
                    + " luminance, dissolve, behind, erase, merge, split) are drawn as normal ones")
        }
        self.warnings = warnings
        header = RasterHeader(size: PixelSize(width: width, height: height), isGray: baseType == 1)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: 4, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height) = (header.size.width, header.size.height)
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        let reader = Reader(file: file, format: format, pointerSize: pointerSize, precision: precision)
        for layer in layers { try draw(layer, onto: &canvas, reader: reader) }
        try rows.pushRows(width: width, height: height, channels: 4) { (y, row) throws(ThumbnailError) in
            for index in 0..<(width * 4) { row[index] = canvas[y * width * 4 + index] }
        }
    }

    /// Lays `layer`'s tiles that fall on the canvas over it.
    private func draw(_ layer: XCFLayer, onto canvas: inout [UInt8], reader: Reader) throws(ThumbnailError) {
        let (width, height, side) = (header.size.width, header.size.height, Self.tileSide)
        let across = (layer.width + side - 1) / side
        let down = (layer.height + side - 1) / side
        for row in 0..<down {
            let top = layer.y + row * side
            guard top < height, top + side > 0 else { continue }
            for column in 0..<across {
                let left = layer.x + column * side
                guard left < width, left + side > 0 else { continue }
                let index = row * across + column
                let (tileWidth, tileHeight) = (
                    min(side, layer.width - column * side), min(side, layer.height - row * side)
                )
                let pixels = try eightBit(
                    tile(
                        layer.tiles, index: index, width: tileWidth, height: tileHeight,
                        bytesPerPixel: layer.components * precision.bytes, reader: reader),
                    components: layer.components, hasAlpha: layer.hasAlpha)
                let mask = try layer.maskTiles.map { (tiles) throws(ThumbnailError) in
                    eightBit(
                        try tile(
                            tiles, index: index, width: tileWidth, height: tileHeight, bytesPerPixel: precision.bytes,
                            reader: reader),
                        components: 1, hasAlpha: true)
                }
                for y in 0..<tileHeight where (0..<height).contains(top + y) {
                    for x in 0..<tileWidth where (0..<width).contains(left + x) {
                        let source = (y * tileWidth + x) * layer.components
                        var (red, green, blue, alpha) = colour(of: pixels, at: source, layer)
                        if let mask { alpha = alpha * Int(mask[y * tileWidth + x]) / 255 }
                        alpha = alpha * layer.opacity / 255
                        let at = ((top + y) * width + left + x) * 4
                        if let mixing = layer.blend {
                            mix(red, green, blue, alpha, by: mixing, into: &canvas, at: at)
                        } else {
                            blend(red, green, blue, alpha, into: &canvas, at: at)
                        }
                    }
                }
            }
        }
    }

    /// A tile as one byte a channel in 8-bit sRGB (the tile itself in that precision).
    private func eightBit(_ tile: [UInt8], components: Int, hasAlpha: Bool) -> [UInt8] {
        precision.isEightBitGamma
            ? tile : precision.eightBit(tile, components: components, hasAlpha: hasAlpha, table: srgbTable)
    }

    /// The pixel at `at` of a tile's interleaved `pixels` (one byte a channel) as RGBA.
    private func colour(of pixels: [UInt8], at: Int, _ layer: XCFLayer) -> (Int, Int, Int, Int) {
        let alpha = layer.hasAlpha ? Int(pixels[at + layer.components - 1]) : 255
        switch baseType {
        case 0: return (Int(pixels[at]), Int(pixels[at + 1]), Int(pixels[at + 2]), alpha)
        case 1: return (Int(pixels[at]), Int(pixels[at]), Int(pixels[at]), alpha)
        default:
            let entry = Int(pixels[at]) * 3
            guard entry + 2 < colourMap.count else { return (0, 0, 0, alpha) }
            return (Int(colourMap[entry]), Int(colourMap[entry + 1]), Int(colourMap[entry + 2]), alpha)
        }
    }

    /// Lays a pixel of `alpha` (0 to 255) over the canvas's pixel at `at` (straight alpha both).
    private func blend(_ red: Int, _ green: Int, _ blue: Int, _ alpha: Int, into canvas: inout [UInt8], at: Int) {
        guard alpha > 0 else { return }
        let below = Int(canvas[at + 3]) * (255 - alpha) / 255
        let total = alpha + below
        func mixed(_ value: Int, _ channel: Int) -> UInt8 {
            UInt8((value * alpha + Int(canvas[at + channel]) * below + total / 2) / total)
        }
        (canvas[at], canvas[at + 1], canvas[at + 2]) = (mixed(red, 0), mixed(green, 1), mixed(blue, 2))
        canvas[at + 3] = UInt8(total)
    }

    /// Lays a pixel of `alpha` in a mode of `mixing` over the canvas's pixel at `at`, clipped to
    /// it: its colour moves towards the mix by `alpha`, its alpha stays.
    private func mix(
        _ red: Int, _ green: Int, _ blue: Int, _ alpha: Int, by mixing: XCFBlend, into canvas: inout [UInt8], at: Int
    ) {
        guard alpha > 0, canvas[at + 3] > 0 else { return }
        func mixed(_ value: Int, _ channel: Int) -> UInt8 {
            let below = Int(canvas[at + channel])
            return UInt8((below * (255 - alpha) + mixing.mix(below, value) * alpha + 127) / 255)
        }
        (canvas[at], canvas[at + 1], canvas[at + 2]) = (mixed(red, 0), mixed(green, 1), mixed(blue, 2))
    }

    /// Tile `index` of the level whose tile offsets start at `tiles`, its pixels interleaved
    /// (`width` x `height`, `bytesPerPixel` each).
    private func tile(_ tiles: Int, index: Int, width: Int, height: Int, bytesPerPixel: Int, reader: Reader)
        throws(ThumbnailError) -> [UInt8]
    {
        let count = width * height * bytesPerPixel
        let start = try reader.pointer(at: tiles + index * pointerSize)
        let next = try reader.pointer(at: tiles + (index + 1) * pointerSize)
        // The last tile's end is not written: at most what its worst encoding takes.
        let most = count + count / 64 + 64 * bytesPerPixel + 16
        let length = next > start ? min(next - start, most) : most
        guard start > 0 else { throw .corrupt(format: format, detail: "a layer has fewer tiles than its size needs") }
        let stored = try FileReader.read(file, count: length, at: start)
        switch compression {
        case 0:
            guard stored.count >= count else { throw .truncated(format: format) }
            return Array(stored.prefix(count))
        case 1:
            return try runLengthPlanes(stored, pixels: width * height, channels: bytesPerPixel)
        default:
            var pixels = [UInt8](repeating: 0, count: count)
            let written = stored.withUnsafeBytes { input in
                pixels.withUnsafeMutableBytes {
                    glance_zlib_inflate(input.baseAddress, input.count, $0.baseAddress, count)
                }
            }
            guard written == count else {
                throw .corrupt(format: format, detail: "a tile does not inflate to its size")
            }
            return pixels
        }
    }

    /// A run-length encoded tile: each channel's `pixels` bytes in turn (a byte n below 127: n + 1
    /// of the next byte; 127: a 16-bit count of it; 128: a 16-bit count of bytes as they are;
    /// above: 256 - n bytes as they are), interleaved.
    private func runLengthPlanes(_ stored: [UInt8], pixels: Int, channels: Int) throws(ThumbnailError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: pixels * channels)
        var at = 0
        for channel in 0..<channels {
            var filled = 0
            while filled < pixels {
                guard at < stored.count else { throw .truncated(format: format) }
                let code = Int(stored[at])
                at += 1
                var length: Int
                let repeated = code < 128
                if code == 127 || code == 128 {
                    guard at + 2 <= stored.count else { throw .truncated(format: format) }
                    length = Int(stored[at]) << 8 | Int(stored[at + 1])
                    at += 2
                } else {
                    length = repeated ? code + 1 : 256 - code
                }
                guard filled + length <= pixels else {
                    throw .corrupt(format: format, detail: "a tile's runs go past its end")
                }
                guard at + (repeated ? 1 : length) <= stored.count else { throw .truncated(format: format) }
                for step in 0..<length {
                    out[(filled + step) * channels + channel] = stored[repeated ? at : at + step]
                }
                at += repeated ? 1 : length
                filled += length
            }
        }
        return out
    }
}

/// A layer of an XCF file as ``XCFDecoder`` draws it: its header, properties and level.
private struct XCFLayer {
    var width = 0
    var height = 0
    /// Its channels a pixel: colour (3 or 1) and alpha if it has it.
    var components = 0
    var hasAlpha = false
    var x = 0
    var y = 0
    var opacity = 255
    var visible = true
    var isGroup = false
    /// GIMP's mode number (0 and 28 are normal).
    var mode = 0
    /// Its mix when its mode is a separable one (``XCFBlend``), nil for normal ones.
    var blend: XCFBlend?
    /// Whether its mask, if it has one, is applied (GIMP writes so).
    var appliesMask = true
    /// Where its mask's full-size level's tile offsets start, when one is applied.
    var maskTiles: Int?
    /// Its place among the groups (empty outside them).
    var path: [Int] = []
    /// Where its full-size level's tile offsets start.
    var tiles = 0
}

/// Reads an XCF file's structures where its offsets point.
private struct Reader {
    let file: OpenFile
    let format: String
    let pointerSize: Int
    let precision: XCFPrecision

    func integer(at offset: Int) throws(ThumbnailError) -> Int {
        try FileReader.read(file, exactly: 4, at: offset, format: format).bigEndian(at: 0, count: 4)
    }

    func pointer(at offset: Int) throws(ThumbnailError) -> Int {
        let value = try FileReader.read(file, exactly: pointerSize, at: offset, format: format).bigEndian(
            at: 0, count: pointerSize)
        guard value >= 0 else { throw .corrupt(format: format, detail: "an offset past any file") }
        return value
    }

    /// Walks the property list at `at` (a type, a length, its payload; type 0 ends it), giving
    /// each its type, where its payload starts and its length; `at` ends past it.
    func properties(
        from at: inout Int, _ each: (Int, Int, Int) throws(ThumbnailError) -> Void
    ) throws(ThumbnailError) {
        for _ in 0..<XCFDecoder.itemLimit {
            let head = try FileReader.read(file, exactly: 8, at: at, format: format)
            let (kind, length) = (head.bigEndian(at: 0, count: 4), head.bigEndian(at: 4, count: 4))
            at += 8
            if kind == 0 { return }
            try each(kind, at, length)
            at += length
        }
        throw .corrupt(format: format, detail: "a property list does not end")
    }

    func layer(at start: Int) throws(ThumbnailError) -> XCFLayer {
        var layer = XCFLayer()
        let head = try FileReader.read(file, exactly: 16, at: start, format: format)
        (layer.width, layer.height) = (head.bigEndian(at: 0, count: 4), head.bigEndian(at: 4, count: 4))
        let type = head.bigEndian(at: 8, count: 4)
        guard (1...XCFDecoder.sideLimit).contains(layer.width), (1...XCFDecoder.sideLimit).contains(layer.height),
            type <= 5
        else { throw .corrupt(format: format, detail: "a layer says \(layer.width)x\(layer.height), type \(type)") }
        layer.hasAlpha = type % 2 == 1
        var at = start + 16 + head.bigEndian(at: 12, count: 4)
        try properties(from: &at) { (kind, payload, length) throws(ThumbnailError) in
            switch kind {
            case 6: layer.opacity = min(255, try integer(at: payload))
            case 33:  // float opacity, 0 to 1
                let bits = UInt32(truncatingIfNeeded: try integer(at: payload))
                let value = Float(bitPattern: bits)
                layer.opacity = value.isFinite ? Int((min(1, max(0, value)) * 255).rounded()) : 255
            case 8: layer.visible = try integer(at: payload) != 0
            case 15:
                let bytes = try FileReader.read(file, exactly: 8, at: payload, format: format)
                layer.x = Int(Int32(truncatingIfNeeded: bytes.bigEndian(at: 0, count: 4)))
                layer.y = Int(Int32(truncatingIfNeeded: bytes.bigEndian(at: 4, count: 4)))
            case 7:
                let mode = try integer(at: payload)
                (layer.mode, layer.blend) = (mode, XCFBlend(mode: mode))
            case 11: layer.appliesMask = try integer(at: payload) != 0
            case 29: layer.isGroup = true
            case 30:
                let count = min(length / 4, 64)
                let bytes = try FileReader.read(file, exactly: 4 * count, at: payload, format: format)
                layer.path = (0..<count).map { bytes.bigEndian(at: 4 * $0, count: 4) }
            default: break
            }
        }
        let hierarchy = try pointer(at: at)
        let mask = try pointer(at: at + pointerSize)
        if layer.isGroup { return layer }
        layer.components = (type / 2 == 0 ? 3 : 1) + (layer.hasAlpha ? 1 : 0)
        let bytesPerPixel: Int
        (layer.tiles, bytesPerPixel) = try level(of: hierarchy, width: layer.width, height: layer.height)
        guard bytesPerPixel == layer.components * precision.bytes else {
            throw .unsupportedEncoding(
                format: format, detail: "\(bytesPerPixel) bytes a pixel in a layer of \(precision)")
        }
        if mask != 0, layer.appliesMask {
            // A channel: its size, name and properties, then its hierarchy (one byte a pixel).
            let head = try FileReader.read(file, exactly: 12, at: mask, format: format)
            guard head.bigEndian(at: 0, count: 4) == layer.width, head.bigEndian(at: 4, count: 4) == layer.height
            else { throw .corrupt(format: format, detail: "a layer's mask is not its size") }
            var after = mask + 12 + head.bigEndian(at: 8, count: 4)
            try properties(from: &after) { _, _, _ in }
            let (tiles, bytes) = try level(of: try pointer(at: after), width: layer.width, height: layer.height)
            guard bytes == precision.bytes else {
                throw .corrupt(format: format, detail: "a layer's mask has \(bytes) bytes a pixel")
            }
            layer.maskTiles = tiles
        }
        return layer
    }

    /// Where the tile offsets of the full-size level of the hierarchy at `hierarchy` start, and
    /// its bytes a pixel; the level must be `width` x `height`.
    private func level(of hierarchy: Int, width: Int, height: Int) throws(ThumbnailError) -> (Int, Int) {
        let levels = try FileReader.read(file, exactly: 12, at: hierarchy, format: format)
        let level = try pointer(at: hierarchy + 12)
        let size = try FileReader.read(file, exactly: 8, at: level, format: format)
        guard size.bigEndian(at: 0, count: 4) == width, size.bigEndian(at: 4, count: 4) == height else {
            throw .corrupt(format: format, detail: "a layer's pixels are not its size")
        }
        return (level + 8, levels.bigEndian(at: 8, count: 4))
    }
}
