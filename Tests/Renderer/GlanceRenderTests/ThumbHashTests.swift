import Foundation
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlanceRender

/// The ThumbHash encoder against the reference implementation's hashes (TestAssets/thumbhash/).
@Suite("ThumbHash", .timeLimit(.minutes(10)))
struct ThumbHashTests {
    /// The generated image of reference.tsv: RGBA, opaque.
    static func image(width: Int, height: Int) -> [UInt8] {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                pixels += [
                    UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)),
                    UInt8((x + y) * 7 % 256), 255,
                ]
            }
        }
        return pixels
    }

    @Test("the same bytes as the reference implementation for every generated image of reference.tsv")
    func matchesReference() throws {
        let text = try String(contentsOfFile: TestLocations.asset("thumbhash/reference.tsv"), encoding: .utf8)
        var checked = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t").map(String.init)
            let (width, height) = (Int(fields[0])!, Int(fields[1])!)
            let hash = ThumbHashEncoder.hash(
                width: width, height: height, channels: 4, pixels: Self.image(width: width, height: height))
            #expect(Data(hash).base64EncodedString() == fields[2], "\(width)x\(height)")
            // The same picture without its alpha channel is the same hash.
            let rgb = Self.image(width: width, height: height).enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
            #expect(ThumbHashEncoder.hash(width: width, height: height, channels: 3, pixels: rgb) == hash)
            checked += 1
        }
        #expect(checked == 6)
    }

    @Test("a thumbnail of any size is fitted into 100x100 first; transparency sets the alpha flag and byte")
    func fromThumbnail() throws {
        let width = 800
        let height = 600
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            pixels[index * 4] = UInt8(index % width * 255 / width)
            pixels[index * 4 + 3] = index % width < width / 2 ? 255 : 0
        }
        let image = PixelBuffer(width: width, height: height, channels: 4, bytes: pixels)
        let hash = try #require(Data(base64Encoded: ThumbHashEncoder.hash(of: image)))
        // Header bit 23: the image has transparency; the landscape flag is bit 15 of the second header.
        #expect(hash[2] & 0x80 != 0)
        #expect(hash[4] & 0x80 != 0)
        #expect((6...30).contains(hash.count))
    }
}
