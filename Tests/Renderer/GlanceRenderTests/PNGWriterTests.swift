import GlanceCore
import Testing

@testable import GlanceRender

/// Glance's own PNG writer and deflate encoder, read back through libpng.
@Suite("PNG writer", .timeLimit(.minutes(10)))
struct PNGWriterTests {
    /// A small deterministic generator, so that a failure can be reproduced.
    struct Noise {
        var state: UInt64
        mutating func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// Images that exercise each part of the encoder: stored blocks (noise), long matches (flat),
    /// short matches and literals (text-like), rows longer than a 64 KiB slice, one pixel, one
    /// column, alpha, and RGB that is gray (written as gray).
    static func image(_ kind: String) -> PixelBuffer {
        var noise = Noise(state: UInt64(kind.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) }))
        switch kind {
        case "noise":
            return PixelBuffer(
                width: 257, height: 301, channels: 3, bytes: (0..<(257 * 301 * 3)).map { _ in noise.next() })
        case "noise-rgba":
            return PixelBuffer(
                width: 131, height: 97, channels: 4, bytes: (0..<(131 * 97 * 4)).map { _ in noise.next() })
        case "flat":
            return PixelBuffer(
                width: 1024, height: 768, channels: 3, bytes: [UInt8](repeating: 200, count: 1024 * 768 * 3))
        case "text-like":
            // White paper with scattered dark strokes, gray in RGB: written as gray.
            var bytes = [UInt8](repeating: 255, count: 724 * 1024 * 3)
            for index in stride(from: 0, to: bytes.count, by: 3) where noise.next() < 40 {
                let value = noise.next() / 2
                bytes[index] = value
                bytes[index + 1] = value
                bytes[index + 2] = value
            }
            return PixelBuffer(width: 724, height: 1024, channels: 3, bytes: bytes)
        case "wide":
            var wide = syntheticImage(width: 30_000, height: 3)
            for index in stride(from: 0, to: wide.bytes.count, by: 7) { wide.bytes[index] = noise.next() }
            return wide
        case "one-pixel":
            return PixelBuffer(width: 1, height: 1, channels: 3, bytes: [noise.next(), noise.next(), noise.next()])
        case "one-column":
            return PixelBuffer(width: 1, height: 5000, channels: 3, bytes: (0..<15_000).map { _ in noise.next() / 64 })
        default:
            return syntheticImage(width: 300, height: 200, alpha: kind == "synthetic-rgba")
        }
    }

    @Test(
        "every kind of image round-trips exactly, with either content's filters",
        arguments: [
            "noise", "noise-rgba", "flat", "text-like", "wide", "one-pixel", "one-column", "synthetic",
            "synthetic-rgba",
        ], [PNGContent.photographic, .document])
    func roundTrip(kind: String, content: PNGContent) throws {
        let scratch = ScratchFolder()
        let image = Self.image(kind)
        let bytes = try ImageEncoder.encode(image, as: .png, content: content)
        let path = try scratch.write(bytes, to: "\(kind).png")
        #expect(try decodeFullSize(path) == image)
    }

    @Test("the chunks are IHDR, sRGB, IDAT, IEND, each with its CRC; noise is stored, flat is tiny")
    func chunks() throws {
        let flat = try ImageEncoder.encode(Self.image("flat"), as: .png)
        let chunks = Self.chunks(of: flat)
        #expect(chunks.map(\.type) == ["IHDR", "sRGB", "IDAT", "IEND"])
        #expect(chunks.allSatisfy { $0.crcMatches })
        #expect(flat.count < 10_000, "1024x768 of one colour: \(flat.count) bytes")

        let noise = Self.image("noise")
        let stored = try ImageEncoder.encode(noise, as: .png)
        // Incompressible rows are stored: no more than the filtered rows and a little framing.
        let raw = noise.height * (1 + noise.rowBytes)
        #expect(stored.count > raw && stored.count < raw + raw / 100 + 100)
        let storedChunks = Self.chunks(of: stored)
        #expect(storedChunks.allSatisfy { $0.crcMatches })
    }

    /// The chunks of a PNG: type and whether the stored CRC is the CRC of type and data.
    static func chunks(of png: [UInt8]) -> [(type: String, crcMatches: Bool)] {
        var chunks: [(String, Bool)] = []
        var at = 8
        func u32(_ i: Int) -> UInt32 { png[i..<(i + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        while at + 12 <= png.count {
            let length = Int(u32(at))
            let typeAndData = Array(png[(at + 4)..<(at + 8 + length)])
            chunks.append(
                (String(decoding: typeAndData.prefix(4), as: UTF8.self), crc32(typeAndData) == u32(at + 8 + length)))
            at += 12 + length
        }
        return chunks
    }

    /// CRC-32 as PNG defines it (bit by bit: slow, and independent of the code under test).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
