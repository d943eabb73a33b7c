import GlanceCore

/// Decodes X bitmaps (XBM) for the ``RasterPipeline``: C source that declares a picture's width
/// and height (`#define NAME_width 16`) and its bits as an array of numbers, eight a `char` (X11)
/// or sixteen a `short` (X10), each row padded to a whole number, its first pixel the lowest bit.
/// A set bit is black, a clear one white.
///
/// Glance's own decoder, not gdk-pixbuf's loader: that loader copies what it is given to a
/// temporary file of its own before it reads it, which a decoder in the sandbox must not write.
/// The sizes are held to the pixel limit before a bit is read, every number is checked, and it
/// has a fuzz target (`fuzz-bitmap`).
final class XBitmapDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    /// Where the array's first number starts (after its `{`).
    private let bitsStart: Int
    /// Bits a number holds: 8 (`char`) or 16 (`short`).
    private let bitsPerNumber: Int

    /// Whether `prefix` starts as an X bitmap: `#define NAME_width N`, then `#define NAME_height N`
    /// (so that a C header that starts with a width of its own is still text).
    static func matches(_ prefix: [UInt8]) -> Bool {
        let lines = prefix.prefix(512).split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count >= 2, let width = CSource.define(in: lines[0]), let height = CSource.define(in: lines[1]),
            width.value != nil, height.value != nil, width.name.hasSuffix("_width")
        else { return false }
        return height.name == width.name.dropLast("_width".count) + "_height"
    }

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        self.data = data
        var width: Int?
        var height: Int?
        var at = 0
        // The defines before the array: its width and height (a hot spot's are skipped).
        while at < data.count, width == nil || height == nil {
            let end = data[at...].firstIndex(of: 0x0A) ?? data.count
            if let define = CSource.define(in: data[at..<end]) {
                if define.name.hasSuffix("_width") { width = define.value }
                if define.name.hasSuffix("_height") { height = define.value }
            } else if data[at..<end].contains(UInt8(ascii: "{")) {
                break
            }
            at = end + 1
        }
        guard let width, let height, width > 0, height > 0 else {
            throw .corrupt(format: type.displayName, detail: "no _width and _height defines before its bits")
        }
        guard let brace = data[min(at, data.count)...].firstIndex(of: UInt8(ascii: "{")) else {
            throw .truncated(format: type.displayName)
        }
        // `short` before the array: X10's sixteen bits a number.
        let declaration = String(decoding: data[min(at, brace)..<brace], as: UTF8.self)
        bitsPerNumber = declaration.contains("short") ? 16 : 8
        bitsStart = brace + 1
        header = RasterHeader(size: PixelSize(width: width, height: height), isGray: true)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height) = (header.size.width, header.size.height)
        let numbersPerRow = (width + bitsPerNumber - 1) / bitsPerNumber
        var row = [UInt8](repeating: 0, count: width * 3)
        var numbers = CSource.Numbers(data, from: bitsStart)
        for _ in 0..<height {
            for index in 0..<numbersPerRow {
                guard let value = numbers.next() else { throw .truncated(format: format) }
                guard value < 1 << bitsPerNumber else {
                    throw .corrupt(format: format, detail: "a number of its bits is \(value)")
                }
                for bit in 0..<bitsPerNumber {
                    let x = index * bitsPerNumber + bit
                    guard x < width else { break }
                    let shade: UInt8 = value >> bit & 1 == 1 ? 0 : 255
                    row[x * 3] = shade
                    row[x * 3 + 1] = shade
                    row[x * 3 + 2] = shade
                }
            }
            row.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * 3, count: 1) }
        }
    }
}
