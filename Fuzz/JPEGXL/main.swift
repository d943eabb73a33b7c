import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `JPEGXLDecoder` and the raster pipeline (`make fuzz`): libjxl's header, colour description and first frame, the shim's tone mapping and the rows.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .jpegXL, name: "fuzz.jxl")
    return 0
}
