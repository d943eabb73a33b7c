import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered by `PDFRenderer` (`make fuzz`), as pixels and then
/// as a PNG encoded from cairo's surface.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, with: PDFRenderer(), name: "fuzz.pdf")
    FuzzDocument.renderEncoding(data, size, as: .pdf, format: .png, name: "fuzz.pdf")
    return 0
}
