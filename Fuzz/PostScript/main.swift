import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered as PostScript (`make fuzz`): Glance's reading of
/// the Document Structuring Conventions' comments (the bounding box, `%%Pages`, the media and
/// paper sizes, each page's comments; a DOS binary EPS's sections) and Ghostscript drawing the
/// page at the size they give, pages 1 and 2 (the second may run the program twice).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .postScript, name: "fuzz.ps")
    FuzzDocument.render(data, size, as: .postScript, name: "fuzz.ps", page: 2)
    return 0
}
