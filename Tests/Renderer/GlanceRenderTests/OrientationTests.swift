import Testing

@testable import GlanceRender

@Suite("EXIF orientation", .timeLimit(.minutes(10)))
struct OrientationTests {
    static let files = ["orient-none", "orient-0"] + (1...8).map { "orient-\($0)" }

    @Test("every orientation displays like the upright picture", arguments: files)
    func upright(_ name: String) throws {
        let upright = try decodeFullSize(TestAssets.path("orientation/upright.png"))
        let thumbnail = try renderDocument(path: TestAssets.path("orientation/\(name).jpg"))
            .thumbnail.image
        #expect(thumbnail.width == upright.width && thumbnail.height == upright.height)
        guard thumbnail.width == upright.width && thumbnail.height == upright.height else { return }
        let difference = PixelStatistics.meanAbsoluteDifference(thumbnail, upright)
        #expect(difference < 6, "\(name): mean difference \(difference) from upright.png")
    }

    @Test("the transforms are the eight symmetries of a rectangle")
    func transforms() {
        // A 3x2 image with distinct pixels; each orientation must be a permutation of them, and
        // applying the inverse turn must give the original back.
        var bytes: [UInt8] = []
        for value in 0..<6 { bytes += [UInt8(value * 40), 0, 0] }
        let image = PixelBuffer(width: 3, height: 2, channels: 3, bytes: bytes)
        let inverse: [ExifOrientation: ExifOrientation] = [
            .up: .up, .upMirrored: .upMirrored, .down: .down, .downMirrored: .downMirrored,
            .leftMirrored: .leftMirrored, .right: .left, .rightMirrored: .rightMirrored, .left: .right,
        ]
        var seen = Set<[UInt8]>()
        for orientation in ExifOrientation.allCases {
            let turned = orientation.apply(to: image)
            #expect((turned.width, turned.height) == (orientation.swapsAxes ? (2, 3) : (3, 2)))
            #expect(turned.bytes.sorted() == image.bytes.sorted())
            seen.insert(turned.bytes)
            #expect(inverse[orientation]!.apply(to: turned) == image, "\(orientation)")
        }
        #expect(seen.count == 8)
        // Orientation 6 (rotate 90 clockwise): the stored left column becomes the top row.
        let right = ExifOrientation.right.apply(to: image)
        #expect(right.pixel(x: 0, y: 0).r == image.pixel(x: 0, y: 1).r)
        #expect(right.pixel(x: 1, y: 0).r == image.pixel(x: 0, y: 0).r)
    }

    @Test("EXIF parsing: both byte orders, and junk means upright")
    func parsing() {
        func payload(littleEndian: Bool, value: UInt16) -> [UInt8] {
            func u16(_ v: UInt16) -> [UInt8] {
                littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
            }
            func u32(_ v: UInt32) -> [UInt8] {
                littleEndian
                    ? u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) : u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF))
            }
            return (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3)
                + u32(1) + u16(value) + u16(0) + u32(0)
        }
        for value in 1...8 {
            for littleEndian in [true, false] {
                let bytes = payload(littleEndian: littleEndian, value: UInt16(value))
                let parsed = bytes.withUnsafeBufferPointer { ExifOrientation(exifPayload: $0) }
                #expect(parsed.rawValue == value)
            }
        }
        for junk: [UInt8] in [
            [], [0x49, 0x49], payload(littleEndian: true, value: 0), payload(littleEndian: false, value: 9),
            [UInt8](repeating: 0xFF, count: 40),
        ] {
            #expect(junk.withUnsafeBufferPointer { ExifOrientation(exifPayload: $0) } == .up)
        }
    }
}
