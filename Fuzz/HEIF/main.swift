import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `HEIFDecoder` and the raster pipeline (`make fuzz`): libheif's boxes, the thumbnail choice, the decode and the ICC or nclx colour.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .heic, name: "fuzz.heic")
    return 0
}
