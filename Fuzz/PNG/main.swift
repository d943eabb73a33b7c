import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `PNGDecoder` and the raster pipeline (`make fuzz`), whole and then
/// encoded as it is made (the row sink and the incremental writer).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .png, name: "fuzz.png")
    FuzzDocument.renderEncoding(data, size, as: .png, format: .png, name: "fuzz.png")
    return 0
}
