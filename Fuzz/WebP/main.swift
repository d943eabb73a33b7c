import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `WebPDecoder` and the raster pipeline (`make fuzz`): the header, the
/// scaled decode of a still image, an animation's first frame, the ICC profile.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .webp, name: "fuzz.webp")
    return 0
}
