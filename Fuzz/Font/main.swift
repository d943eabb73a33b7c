import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `FontSheetRenderer` (`make fuzz`): FreeType's reading of a TrueType, OpenType, collection or WOFF font from memory, the shim's choice of sample and the sheet drawn through cairo.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .trueTypeFont, name: "fuzz.ttf")
    return 0
}
