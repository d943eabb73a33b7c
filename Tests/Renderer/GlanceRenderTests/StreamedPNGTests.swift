import Foundation
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlanceRender

/// PNG thumbnails encoded row by row as the scaler makes them (the thumbnail never whole in
/// memory) against the same thumbnails made whole and then encoded.
@Suite("Streamed PNG thumbnails", .timeLimit(.minutes(10)))
struct StreamedPNGTests {
    /// Renders `path` both ways through one thumbnailer: (streamed, whole then encoded).
    static func bothWays(_ path: String, maxSide: Int = ThumbnailGeometry.defaultMaxSide) throws -> (
        streamed: RenderResult, whole: RenderedThumbnail, wholeBytes: [UInt8]
    ) {
        let thumbnailer = Thumbnailer()
        let file = try OpenFile.regularFile(atPath: path)
        let request = RenderRequest(file: file, name: path, maxSide: maxSide)
        let streamed = try thumbnailer.render(request, as: .png, encodingAs: .png)
        let again = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path, maxSide: maxSide)
        let whole = try thumbnailer.render(again, as: .png)
        let bytes = try ImageEncoder.encode(whole.image, as: .png, content: .photographic)
        return (streamed, whole, bytes)
    }

    @Test(
        "an opaque, non-interlaced PNG is encoded as it is made, to the same bytes, size, colour and warnings",
        arguments: [
            "png/photo-like.png",  // RGB, reduced
            "png/rgb16.png",  // 16-bit samples
            "png/gray8.png",  // gray: written as gray
            "png/tall-4000.png",  // much taller than wide
            "png/rgb8-1x1.png",  // nothing to reduce: rows copied through
            "colour/display-p3.png",  // an ICC profile: converted row by row
            "colour/gamma-1.0.png",  // gAMA without iCCP
        ])
    func sameAsWhole(asset: String) throws {
        let (streamed, whole, wholeBytes) = try Self.bothWays(TestAssets.path(asset))
        guard case .encoded(let encoded) = streamed else {
            Issue.record("\(asset) was not streamed")
            return
        }
        #expect(encoded.data == wholeBytes)
        #expect(encoded.width == whole.image.width && encoded.height == whole.image.height)
        #expect(encoded.averageColour == whole.image.averageColour)
        #expect(encoded.warnings == whole.warnings)
        #expect(encoded.colour?.profile == whole.colour?.profile)
        if asset.hasPrefix("colour/") { #expect(encoded.colour != nil, "converted to sRGB") }
        #expect(encoded.sourceWidth == whole.sourceWidth && encoded.sourceHeight == whole.sourceHeight)
    }

    @Test(
        "images whose alpha, interlacing or gray profile is known only at the end are made whole",
        arguments: ["png/rgba8.png", "png/rgb8-trns.png", "png/interlaced-rgb8.png", "png/palette8-trns.png"])
    func madeWhole(asset: String) throws {
        let (streamed, _, _) = try Self.bothWays(TestAssets.path(asset))
        guard case .pixels = streamed else {
            Issue.record("\(asset) was streamed")
            return
        }
    }

    @Test("an RGB image whose rows are all gray comes out as 8-bit gray, as a whole one does")
    func grayRowsOfRGB() throws {
        let folder = ScratchFolder()
        var gray = syntheticImage(width: 300, height: 200)
        for index in stride(from: 0, to: gray.bytes.count, by: 3) {
            gray.bytes[index + 1] = gray.bytes[index]
            gray.bytes[index + 2] = gray.bytes[index]
        }
        let path = try folder.write(try ImageEncoder.encode(gray, as: .png), to: "gray-as-rgb.png")
        let (streamed, _, wholeBytes) = try Self.bothWays(path, maxSide: 100)
        guard case .encoded(let encoded) = streamed else {
            Issue.record("not streamed")
            return
        }
        #expect(encoded.data == wholeBytes)
        // IHDR's colour type (byte 25): 0 is gray.
        #expect(encoded.data[25] == 0)
    }

    @Test(
        "a PDF or text page goes to PNG straight from cairo's surface, to the bytes the pixels would give",
        arguments: [
            "pdf/letter.pdf",
            "pdf/with-photo.pdf",
            "pdf/rotate-90.pdf",
            "text/latin-utf8.txt",
            "text/chinese-utf8.txt",
            "text/empty.txt",  // a blank page
        ])
    func pageFromSurface(asset: String) throws {
        let path = TestAssets.path(asset)
        let thumbnailer = Thumbnailer()
        let (type, text, _, _, _) = try thumbnailer.sniff(try OpenFile.regularFile(atPath: path), named: path)
        var request = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path)
        request.text = text
        guard case .encoded(let encoded) = try thumbnailer.render(request, as: type, encodingAs: .png) else {
            Issue.record("\(asset) was not encoded from the surface")
            return
        }
        var again = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path)
        again.text = text
        let whole = try thumbnailer.render(again, as: type)
        #expect(encoded.data == (try ImageEncoder.encode(whole.image, as: .png, content: .document)))
        #expect(encoded.width == whole.image.width && encoded.height == whole.image.height)
        #expect(encoded.averageColour == whole.image.averageColour)
        #expect(encoded.warnings == whole.warnings)
        #expect(encoded.sourceWidth == whole.sourceWidth && encoded.sourceHeight == whole.sourceHeight)
        // IHDR's colour type (byte 25): 0 gray when every pixel is gray (text pages are), 2 RGB.
        let pixels: [UInt8] = whole.image.bytes
        var isGray = true
        for index in stride(from: 0, to: pixels.count, by: 3)
        where pixels[index] != pixels[index + 1]
            || pixels[index] != pixels[index + 2]
        {
            isGray = false
        }
        #expect(encoded.data[25] == (isGray ? 0 : 2))
        if type == .text { #expect(isGray) }
    }
}

/// A thumbnail's encoded bytes sent in pieces while it is made (as a worker sends them to the
/// coordinator), so that not even the encoded image exists whole.
@Suite("PNG sent in pieces", .timeLimit(.minutes(10)))
struct PNGPieceTests {
    /// An RGB image of noise (which does not compress) and a smooth band (which does).
    static func noisyImage(width: Int, height: Int) -> PixelBuffer {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for index in bytes.indices {
            let y = index / (width * 3)
            bytes[index] = y < height / 2 ? UInt8.random(in: 0...255, using: &generator) : UInt8(truncatingIfNeeded: y)
        }
        return PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// Encodes `image` row by row, with a sink when `pieceBytes` is given: (pieces, the rest).
    static func encode(_ image: PixelBuffer, pieceBytes: Int?) throws -> (pieces: [[UInt8]], rest: [UInt8]) {
        var pieces: [[UInt8]] = []
        let sink: EncodedBytesSink? =
            pieceBytes == nil
            ? nil
            : { bytes in
                pieces.append(Array(bytes))
                return true
            }
        let rest = try encodeRows(image, sink: sink, pieceBytes: pieceBytes ?? ImageEncoder.defaultSentPieceBytes)
        return (pieces, rest)
    }

    /// Encodes `image` row by row through `sink`; the bytes after those it was given.
    static func encodeRows(_ image: PixelBuffer, sink: EncodedBytesSink?, pieceBytes: Int) throws(ThumbnailError)
        -> [UInt8]
    {
        try ImageEncoder.encodePNG(
            width: image.width, height: image.height, channels: image.channels, content: .photographic, sink: sink,
            sentPieceBytes: pieceBytes
        ) { write in
            image.bytes.withUnsafeBufferPointer { pixels in
                for y in 0..<image.height { write(pixels.baseAddress! + y * image.rowBytes) }
            }
        }
    }

    @Test("the pieces and the rest are the whole PNG's zlib stream in several IDAT chunks, each piece whole chunks")
    func piecesAreWholeChunks() throws {
        // About 240 kB of noise: the deflate encoder hands over its output a 64 KiB slice of
        // input at a time, so pieces come at that pace.
        let image = Self.noisyImage(width: 400, height: 400)
        let whole = try Self.encode(image, pieceBytes: nil)
        #expect(whole.pieces.isEmpty)
        let sent = try Self.encode(image, pieceBytes: 16 << 10)
        #expect(sent.pieces.count >= 3, "\(sent.pieces.count) pieces")
        let joined = sent.pieces.flatMap { $0 } + sent.rest
        let wholeChunks = try #require(PNGChunks(png: whole.rest))
        let sentChunks = try #require(PNGChunks(png: joined))
        #expect(sentChunks.imageData == wholeChunks.imageData)
        #expect(sentChunks.types.filter { $0 != "IDAT" } == wholeChunks.types.filter { $0 != "IDAT" })
        #expect(sentChunks.types.filter { $0 == "IDAT" }.count == sent.pieces.count + 1)
        // The first piece starts the PNG; each later one, and the rest, is whole chunks.
        #expect(PNGChunks(png: sent.pieces[0]) != nil)
        for piece in sent.pieces.dropFirst() + [sent.rest] { #expect(PNGChunks.read(piece[...]) != nil) }
        #expect(sent.pieces.allSatisfy { $0.count >= 16 << 10 })
    }

    @Test("a gray image is never sent in pieces: the gray PNG replaces the colour one only at the end")
    func grayKeptWhole() throws {
        var image = Self.noisyImage(width: 300, height: 200)
        for pixel in 0..<(image.width * image.height) {
            image.bytes[3 * pixel + 1] = image.bytes[3 * pixel]
            image.bytes[3 * pixel + 2] = image.bytes[3 * pixel]
        }
        let sent = try Self.encode(image, pieceBytes: 4 << 10)
        #expect(sent.pieces.isEmpty)
        let chunks = try #require(PNGChunks(png: sent.rest))
        #expect(chunks.chunks.first?.data[9] == 0, "colour type 0: gray")
    }

    @Test("a sink that refuses a piece fails the encode, saying so")
    func refusedPieceFails() throws {
        let image = Self.noisyImage(width: 300, height: 200)
        #expect(throws: ThumbnailError.self) {
            _ = try Self.encodeRows(image, sink: { _ in false }, pieceBytes: 4 << 10)
        }
    }

    @Test("a large PNG source's thumbnail is sent in pieces through the thumbnailer, to the same image")
    func thumbnailerSendsPieces() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glance-pieces-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("noise.png").path
        let source = Self.noisyImage(width: 1300, height: 1300)
        try Data(ImageEncoder.encode(source, as: .png, content: .photographic)).write(to: URL(fileURLWithPath: path))
        let thumbnailer = Thumbnailer()
        var pieces: [UInt8] = []
        var calls = 0
        let result = try thumbnailer.render(
            RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path), as: .png, encodingAs: .png,
            sendingLeadingBytesTo: { bytes in
                pieces += bytes
                calls += 1
                return true
            })
        let plain = try thumbnailer.render(
            RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path), as: .png, encodingAs: .png)
        guard case .encoded(let sent) = result, case .encoded(let whole) = plain else {
            Issue.record("not streamed")
            return
        }
        #expect(calls >= 2, "\(calls) pieces")
        #expect(sent.leadingByteCount == pieces.count && whole.leadingByteCount == 0)
        #expect(pieces.count + sent.data.count > ImageEncoder.defaultSentPieceBytes)
        let joined = try #require(PNGChunks(png: pieces + sent.data))
        #expect(joined.imageData == PNGChunks(png: whole.data)?.imageData)
        #expect(sent.averageColour == whole.averageColour && sent.width == whole.width)
    }
}
