import GlanceCore

@testable import GlanceRender

/// A small image run through every transform a profile allows.
private let sample = PixelBuffer(
    width: 8, height: 4, channels: 4, bytes: (0..<(8 * 4 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 37) })

/// libFuzzer's entry point: one input read as an ICC profile by Little CMS (`make fuzz`), and when
/// it reads, every transform to sRGB Glance would build from it applied to a few pixels. Profiles
/// come from documents, so this is a decoder like the others.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let profile = try? ColourProfile(bytes: bytes, fallbackName: "fuzz") else { return 0 }
    let layouts: [ColourPixels]
    switch profile.space {
    case .rgb: layouts = [.rgb, .rgba]
    case .gray: layouts = [.grayInRGB, .grayInRGBA]
    case .cmyk: layouts = [.cmyk(inverted: false), .cmyk(inverted: true)]
    case .other: layouts = [.rgb]
    }
    for pixels in layouts {
        guard let transform = try? ColourTransform(profile: profile, pixels: pixels) else { continue }
        var image = sample
        switch pixels {
        case .rgb, .grayInRGB:
            image = sample.droppingAlpha()
            transform.apply(to: &image)
        case .rgba, .grayInRGBA:
            transform.apply(to: &image)
        case .cmyk:
            // Four bytes of CMYK in, three of RGB out.
            var output = [UInt8](repeating: 0, count: 8 * 4 * 3)
            sample.bytes.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { rgb in
                    transform.apply(
                        input: input.baseAddress!, inputStride: 32, output: rgb.baseAddress!, outputStride: 24,
                        width: 8,
                        rows: 4)
                }
            }
        }
    }
    return 0
}
