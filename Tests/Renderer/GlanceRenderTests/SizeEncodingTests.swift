import Foundation
import GlanceCore
import Testing

@testable import GlanceRender

/// The store's smaller sizes: lossy WebP for gradual pictures, lossless for text pages,
/// JPEG for photos (``SizeEncoding``, ``PictureKind``).
@Suite("Size encoding", .timeLimit(.minutes(10)))
struct SizeEncodingTests {
    /// A page-sized picture of gradual changes: a diagonal ramp with a little seeded noise, as a
    /// photograph's neighbours differ.
    static func photographicPage(width: Int = 1024, height: Int = 724) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 12_345
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_103_515_245 &+ 12_345
                let noise = Int(state >> 16 & 7) - 3
                let index = (y * width + x) * 3
                bytes[index] = UInt8(clamping: (x + y) * 255 / (width + height) + noise)
                bytes[index + 1] = UInt8(clamping: 60 + y * 120 / height + noise)
                bytes[index + 2] = UInt8(clamping: 200 - x * 150 / width + noise)
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// A page of dark strokes on white in RGB, as a PDF's text page is drawn.
    static func textPage(width: Int = 724, height: Int = 1024) -> PixelBuffer {
        var bytes = [UInt8](repeating: 255, count: width * height * 3)
        for y in stride(from: 40, to: height - 40, by: 24) {
            for row in y..<(y + 9) {
                for x in 60..<(width - 60) where (x / 7) % 3 != 0 {
                    for channel in 0..<3 { bytes[(row * width + x) * 3 + channel] = 20 }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// The chunk that follows a WebP file's header: "VP8 " for lossy, "VP8L" for lossless.
    static func webpChunk(_ data: [UInt8]) -> String {
        String(decoding: data[12..<16], as: UTF8.self)
    }

    /// ``textPage(width:height:)`` with its strokes in `colour` (RGB), on `rows` only when given.
    static func colouredTextPage(_ colour: [UInt8], rows: Range<Int>? = nil) -> PixelBuffer {
        let page = textPage()
        var bytes = page.bytes
        for y in rows ?? 0..<page.height {
            for x in 0..<page.width where bytes[(y * page.width + x) * 3] == 20 {
                for channel in 0..<3 { bytes[(y * page.width + x) * 3 + channel] = colour[channel] }
            }
        }
        return PixelBuffer(width: page.width, height: page.height, channels: 3, bytes: bytes)
    }

    /// One channel of `image` (RGB).
    static func grayChannel(_ image: PixelBuffer) -> PixelBuffer {
        PixelBuffer(
            width: image.width, height: image.height, channels: 1,
            bytes: stride(from: 0, to: image.bytes.count, by: 3).map { image.bytes[$0] })
    }

    @Test("a picture's kind: gradual changes, or flat areas and hard edges; gray or in colour")
    func kinds() {
        #expect(PictureKind(of: Self.photographicPage()) == .gradual)
        // Black text in RGB, and in one channel, is gray text; coloured text is sharp.
        #expect(PictureKind(of: Self.textPage()) == .grayText)
        #expect(PictureKind(of: Self.grayChannel(Self.textPage())) == .grayText)
        #expect(PictureKind(of: Self.colouredTextPage([200, 20, 20])) == .sharp)
        let blank = PixelBuffer(width: 64, height: 64, channels: 3, bytes: [UInt8](repeating: 255, count: 64 * 64 * 3))
        #expect(PictureKind(of: blank) == .grayText)
        // A gray photograph in one channel is gray; in RGB it stays gradual (lossy WebP).
        #expect(PictureKind(of: Self.grayChannel(Self.photographicPage())) == .gray)
        // Alpha is not compared: a gradual picture with varying transparency stays gradual.
        let page = Self.photographicPage(width: 200, height: 100)
        var withAlpha: [UInt8] = []
        for index in 0..<(200 * 100) {
            withAlpha += page.bytes[index * 3..<index * 3 + 3]
            withAlpha.append(index % 2 == 0 ? 255 : 0)
        }
        #expect(PictureKind(of: PixelBuffer(width: 200, height: 100, channels: 4, bytes: withAlpha)) == .gradual)
    }

    /// A picture whose rows step between neighbours in a repeating run of ten: `gradual` steps of
    /// 5, the rest of 100 (up and down in turn), as a screenshot mixes soft and hard edges.
    static func steps(gradual: Int, width: Int = 300, height: Int = 40) -> PixelBuffer {
        var bytes: [UInt8] = []
        for _ in 0..<height {
            var (value, hardUp) = (60, true)
            for x in 0..<width {
                if x > 0 {
                    if (x - 1) % 10 < gradual {
                        value = value >= 150 ? value - 5 : value + 5
                    } else {
                        value += hardUp ? 100 : -100
                        hardUp.toggle()
                    }
                }
                bytes += [UInt8(value), UInt8(value), UInt8(255 - value)]
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    @Test("the line between the kinds: 40% of the changes gradual")
    func gradualShare() {
        #expect(PictureKind.gradualShare == 0.4)
        #expect(PictureKind(of: Self.steps(gradual: 3)) == .sharp)
        #expect(PictureKind(of: Self.steps(gradual: 4)) == .gradual)
        #expect(PictureKind(of: Self.steps(gradual: 6)) == .gradual)
    }

    @Test("the encoding of each size by the thumbnail's format and the picture's kind")
    func rule() {
        #expect(SizeEncoding(side: 512, thumbnailFormat: .jpeg, kind: .gradual) == .lossyWebP)
        #expect(SizeEncoding(side: 256, thumbnailFormat: .jpeg, kind: nil) == .lossyWebP)
        #expect(SizeEncoding(side: 256, thumbnailFormat: .jpeg, kind: .sharp) == .lossyWebP)
        for side in [256, 512] {
            #expect(SizeEncoding(side: side, thumbnailFormat: .png, kind: .gray) == .png)
            #expect(SizeEncoding(side: side, thumbnailFormat: .png, kind: .gradual) == .lossyWebP)
        }
        #expect(SizeEncoding(side: 256, thumbnailFormat: .png, kind: .sharp) == .losslessWebP)
        #expect(
            SizeEncoding(side: 256, thumbnailFormat: .png, kind: .grayText) == .sixteenGrays(otherwise: .losslessWebP))
        #expect(SizeEncoding(side: 512, thumbnailFormat: .png, kind: .grayText) == .sixteenGrays(otherwise: .png))
        #expect(SizeEncoding(side: 512, thumbnailFormat: .png, kind: .sharp) == .png)
        #expect(SizeEncoding(side: 512, thumbnailFormat: .png, kind: nil) == .png)
    }

    @Test("a photographic page's sizes are lossy WebP: far fewer bytes than lossless, the same picture to the eye")
    func photographicSizes() throws {
        let page = Self.photographicPage()
        let made = try RenditionMaker.sizes(of: page, fitting: [256, 512], as: .png, content: .document)
        #expect(made.sizes.map(\.format) == [.webp, .webp])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glance-sizes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for size in made.sizes {
            #expect(Self.webpChunk(size.data) == "VP8 ", "the \(size.side) is not lossy")
            let tile = try RenditionMaker.fit(page, into: size.side)
            let lossless = try ImageEncoder.encode(tile, as: .webp)
            #expect(size.data.count * 3 < lossless.count, "\(size.side): \(size.data.count) against \(lossless.count)")
            let file = folder.appendingPathComponent("\(size.side).webp")
            try Data(size.data).write(to: file)
            let decoded = try decodeFullSize(file.path)
            #expect(decoded.width == tile.width && decoded.height == tile.height)
            let psnr = PixelStatistics.psnr(decoded, tile)
            #expect(psnr > 36, "\(size.side): \(psnr) dB")
        }
    }

    @Test("a coloured text page's sizes stay lossless: the 256 lossless WebP, the 512 PNG")
    func graphicSizes() throws {
        let page = Self.colouredTextPage([200, 20, 20])
        let made = try RenditionMaker.sizes(of: page, fitting: [256, 512], as: .png, content: .document)
        #expect(made.sizes.map(\.format) == [.webp, .png])
        #expect(Self.webpChunk(made.sizes[0].data) == "VP8L")
        #expect(made.sizes[1].data[24] == 8, "the 512 is a PNG of 8 bits a sample")
    }

    @Test("no size is kept larger than the image it stands in for: past that, it is encoded as the thumbnail is")
    func neverLargerThanTheLargerImage() throws {
        let page = Self.colouredTextPage([200, 20, 20])
        let unbounded = try RenditionMaker.sizes(of: page, fitting: [256, 512], as: .webp, content: .document)
        #expect(unbounded.sizes.map(\.format) == [.webp, .png])
        // A thumbnail of no more bytes than the 512's PNG: the 512 becomes the thumbnail's
        // lossless WebP, which is smaller, and the 256 stays under the 512.
        let bound = unbounded.sizes[1].data.count
        let bounded = try RenditionMaker.sizes(
            of: page, fitting: [256, 512], as: .webp, content: .document, thumbnailBytes: bound)
        #expect(bounded.sizes.map(\.format) == [.webp, .webp])
        #expect(Self.webpChunk(bounded.sizes[1].data) == "VP8L")
        #expect(bounded.sizes[1].data.count < bound, "\(bounded.sizes[1].data.count) against \(bound) bytes")
        #expect(bounded.sizes[0].data.count < bounded.sizes[1].data.count)
        // A side asked for twice (a job is not trusted to list each once) is made twice, in order.
        let twice = try RenditionMaker.sizes(of: page, fitting: [512, 256, 512], as: .webp, content: .document)
        #expect(twice.sizes.map(\.side) == [512, 512, 256])
        // Under a bound that neither encoding meets, the smaller of the two is kept.
        let tight = try RenditionMaker.sizes(
            of: page, fitting: [512], as: .webp, content: .document, thumbnailBytes: 10)
        #expect(tight.sizes[0].data == bounded.sizes[1].data)
    }

    /// A text page drawn with every gray from black to white in its strokes (anti-aliased edges),
    /// in one channel.
    static func antialiasedTextPage(width: Int = 724, height: Int = 1024) -> PixelBuffer {
        var bytes = [UInt8](repeating: 255, count: width * height)
        for y in stride(from: 40, to: height - 40, by: 24) {
            for row in y..<(y + 9) {
                for x in 60..<(width - 60) {
                    // Strokes of 7 pixels with ramps at both ends: 0, 36, ... 252.
                    let phase = (x + row) % 14
                    bytes[row * width + x] = phase < 7 ? UInt8(phase * 36) : 255
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 1, bytes: bytes)
    }

    @Test(
        "a gray text page's sizes are 4-bit gray PNGs, each pixel the nearest of sixteen grays, fewer bytes than 256 levels"
    )
    func grayTextSizes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glance-sizes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for page in [Self.antialiasedTextPage(), Self.textPage()] {
            let made = try RenditionMaker.sizes(of: page, fitting: [256, 512], as: .png, content: .document)
            #expect(made.sizes.map(\.format) == [.png, .png])
            var source = page
            for size in made.sizes.reversed() {
                // IHDR: bit depth 4, colour type 0 (gray).
                #expect(Array(size.data[24...25]) == [4, 0], "the \(size.side)")
                let tile = try RenditionMaker.fit(source, into: size.side)
                source = tile
                let file = folder.appendingPathComponent("\(size.side)-\(page.channels).png")
                try Data(size.data).write(to: file)
                let decoded = try decodeFullSize(file.path)
                #expect(decoded.width == tile.width && decoded.height == tile.height)
                // Every decoded gray is the level nearest the tile's own (levels 17 apart).
                let tileGrays = Self.grays(tile)
                let decodedGrays = Self.grays(decoded)
                let farthest = zip(tileGrays, decodedGrays).map { abs(Int($0) - Int($1)) }.max() ?? 255
                #expect(farthest <= 8, "the \(size.side): a gray off by \(farthest)")
                #expect(Set(decodedGrays).allSatisfy { $0 % 17 == 0 })
                let eightBit = try ImageEncoder.encodePNG(Self.grayChannel(tile, ifRGB: true), content: .document)
                #expect(size.data.count < eightBit.count, "\(size.data.count) against \(eightBit.count) bytes")
            }
        }
    }

    @Test(
        "every gray becomes its nearest of the sixteen levels exactly, at widths around sixteen samples",
        arguments: [1, 15, 16, 17, 37, 64])
    func sixteenGraysExactly(width: Int) throws {
        // Every value 0...255 once or more, row after row.
        let height = (256 + width - 1) / width + 1
        let bytes = (0..<width * height).map { UInt8(($0 * 7) % 256) }
        let page = PixelBuffer(width: width, height: height, channels: 1, bytes: bytes)
        let data = try #require(try ImageEncoder.encodeInSixteenGrays(page))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "glance-grays-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(data).write(to: file)
        let decoded = Self.grays(try decodeFullSize(file.path))
        let nearest = bytes.map { UInt8((Int($0) * 15 + 127) / 255 * 17) }
        // Compared as a Bool: a failure would print every sample of both.
        let same = decoded == nearest
        #expect(same, "width \(width)")
    }

    @Test("a page gray on the rows its kind sampled but coloured on another is encoded as a coloured one")
    func colourBetweenSampledRows() throws {
        // The 512 halves the page: its row 33, not one of the rows sampled (every fourth, from
        // 0), is made of the page's rows 66 and 67, in a line of text.
        let page = Self.colouredTextPage([200, 20, 20], rows: 66..<68)
        #expect(PictureKind(of: try RenditionMaker.fit(page, into: 512)) == .grayText)
        let made = try RenditionMaker.sizes(of: page, fitting: [512], as: .png, content: .document)
        #expect(made.sizes.map(\.format) == [.png])
        #expect(made.sizes[0].data[24] == 8, "the 512 keeps 8 bits a sample")
        #expect(try ImageEncoder.encodeInSixteenGrays(page) == nil)
    }

    /// The gray of each pixel of `image` (one channel, or the first of several).
    static func grays(_ image: PixelBuffer) -> [UInt8] {
        stride(from: 0, to: image.bytes.count, by: image.channels).map { image.bytes[$0] }
    }

    /// `image` in one channel when it is RGB, else as it is.
    static func grayChannel(_ image: PixelBuffer, ifRGB: Bool) -> PixelBuffer {
        image.channels == 3 ? grayChannel(image) : image
    }

    @Test("a photo's sizes are lossy WebP, whatever its pixels, closer to the tile than JPEG at the 1024's quality")
    func photoSizes() throws {
        let page = Self.textPage()
        let made = try RenditionMaker.sizes(of: page, fitting: [256, 512], as: .jpeg, content: .photographic)
        #expect(made.sizes.map(\.format) == [.webp, .webp])
        #expect(made.sizes.allSatisfy { Self.webpChunk($0.data) == "VP8 " })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glance-sizes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Each size is made from the next larger one (the 256 from the 512), as here.
        var source = page
        for size in made.sizes.reversed() {
            let tile = try RenditionMaker.fit(source, into: size.side)
            source = tile
            let jpeg = try ImageEncoder.encodeJPEG(tile)
            var psnr: [Double] = []
            for (name, data) in [("size.webp", size.data), ("jpeg.jpg", jpeg)] {
                let file = folder.appendingPathComponent("\(size.side)-\(name)")
                try Data(data).write(to: file)
                psnr.append(PixelStatistics.lumaPSNR(try decodeFullSize(file.path), tile))
            }
            #expect(psnr[0] > psnr[1], "\(size.side): \(psnr[0]) dB against JPEG's \(psnr[1]) dB")
        }
    }
}
