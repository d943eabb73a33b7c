import GlanceCore

/// Decodes QOI ("Quite OK Image") for the ``RasterPipeline``: RGB or RGBA, its chunks (a pixel
/// in full, an index into the 64 pixels seen, a small difference, a run) decoded a batch of rows
/// at a time as the pipeline takes them. QOI has no colour profile: its pixels are taken as sRGB.
///
/// Glance's own decoder (the format's whole specification is one page, and no library in Debian
/// reads it): the header is held to the pixel limit before a pixel is decoded, every chunk is
/// bounds-checked, and it has a fuzz target (`fuzz-bitmap`).
final class QOIDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    private let storedChannels: Int

    /// `qoif`, the width and height (32 bits, big-endian), the channels and the colour space.
    static let headerLength = 14

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        self.data = data
        guard data.count >= Self.headerLength, data.starts(with: Array("qoif".utf8)) else {
            throw .truncated(format: type.displayName)
        }
        let (width, height) = (data.bigEndian(at: 4, count: 4), data.bigEndian(at: 8, count: 4))
        storedChannels = Int(data[12])
        guard width > 0, height > 0, storedChannels == 3 || storedChannels == 4, data[13] <= 1 else {
            throw .corrupt(format: type.displayName, detail: "its header says \(width)x\(height), \(data[12]) channels")
        }
        header = RasterHeader(size: PixelSize(width: width, height: height))
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: storedChannels, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height, channels) = (header.size.width, header.size.height, storedChannels)
        let batch = max(1, min(height, (1 << 20) / (width * channels)))
        var out = [UInt8](repeating: 0, count: width * channels * batch)
        var seen = [UInt32](repeating: 0, count: 64)
        var pixel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) = (0, 0, 0, 255)
        var run = 0
        var at = Self.headerLength
        var row = 0
        while row < height {
            let count = min(batch, height - row)
            for index in 0..<(width * count) {
                if run > 0 {
                    run -= 1
                } else {
                    guard at < data.count else { throw .truncated(format: format) }
                    let tag = data[at]
                    at += 1
                    switch tag {
                    case 0xFE, 0xFF:
                        let length = tag == 0xFE ? 3 : 4
                        guard at + length <= data.count else { throw .truncated(format: format) }
                        pixel.r = data[at]
                        pixel.g = data[at + 1]
                        pixel.b = data[at + 2]
                        if tag == 0xFF { pixel.a = data[at + 3] }
                        at += length
                    default:
                        switch tag >> 6 {
                        case 0:
                            let packed = seen[Int(tag & 0x3F)]
                            pixel = (
                                UInt8(packed >> 24), UInt8(packed >> 16 & 0xFF), UInt8(packed >> 8 & 0xFF),
                                UInt8(packed & 0xFF)
                            )
                        case 1:
                            pixel.r = pixel.r &+ ((tag >> 4) & 3) &- 2
                            pixel.g = pixel.g &+ ((tag >> 2) & 3) &- 2
                            pixel.b = pixel.b &+ (tag & 3) &- 2
                        case 2:
                            guard at < data.count else { throw .truncated(format: format) }
                            let green = (tag & 0x3F) &- 32
                            let next = data[at]
                            at += 1
                            pixel.r = pixel.r &+ green &+ (next >> 4) &- 8
                            pixel.g = pixel.g &+ green
                            pixel.b = pixel.b &+ green &+ (next & 0x0F) &- 8
                        default:
                            run = Int(tag & 0x3F)
                        }
                    }
                    let hash = (Int(pixel.r) * 3 + Int(pixel.g) * 5 + Int(pixel.b) * 7 + Int(pixel.a) * 11) % 64
                    seen[hash] = UInt32(pixel.r) << 24 | UInt32(pixel.g) << 16 | UInt32(pixel.b) << 8 | UInt32(pixel.a)
                }
                let target = index * channels
                out[target] = pixel.r
                out[target + 1] = pixel.g
                out[target + 2] = pixel.b
                if channels == 4 { out[target + 3] = pixel.a }
            }
            out.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * channels, count: count) }
            row += count
        }
    }
}
