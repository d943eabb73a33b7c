import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `JPEGDecoder` and the raster pipeline (`make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .jpeg, name: "fuzz.jpg")
    return 0
}
