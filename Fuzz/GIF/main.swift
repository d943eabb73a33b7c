import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered by `GIFRenderer` (`make fuzz`): the first frame composed on its screen, transparency and interlace.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, with: GIFRenderer(), name: "fuzz.gif")
    return 0
}
