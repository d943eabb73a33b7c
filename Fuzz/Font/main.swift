import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `FontSheetRenderer` (`make fuzz`): FreeType's reading of a TrueType, OpenType, collection or WOFF font from memory, the shim's choice of sample, and its three pages drawn through cairo (the sheet, the waterfall, the glyph coverage).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    for page in 1...3 { FuzzDocument.render(data, size, as: .trueTypeFont, name: "fuzz.ttf", page: page) }
    return 0
}
