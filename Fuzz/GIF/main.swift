import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `GIFDecoder` and the raster pipeline (`make fuzz`): the first frame composed on its screen, transparency and interlace.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .gif, name: "fuzz.gif")
    return 0
}
