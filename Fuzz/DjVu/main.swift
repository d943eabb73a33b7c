import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `DjVuRenderer` (`make fuzz`): DjVuLibre's reading of the document's chunks and pages, the shim's message handling (another file asked for is refused) and the page drawn at the thumbnail's size.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .djvu, name: "fuzz.djvu")
    return 0
}
