import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered by `PNGRenderer` (`make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, with: PNGRenderer(), name: "fuzz.png")
    return 0
}
