import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `PhotoshopDecoder` and the raster pipeline (`make fuzz`): Glance's own reader of the header, the sections, the image resources (profile, VersionInfo, thumbnail) and the composite's raw or PackBits rows in every mode and depth.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .photoshop, name: "fuzz.psd")
    return 0
}
