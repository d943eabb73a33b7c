import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered by `SVGRenderer` (`make fuzz`): librsvg's parse and drawing, the intrinsic size, the straightened pixels.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, with: SVGRenderer(), name: "fuzz.svg")
    return 0
}
