import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered as a SketchUp model and as an InDesign document (`make fuzz`): Glance's search for the preview each carries (a PNG walked by its chunks; an XMP page thumbnail in base64) and the picture's decoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .sketchUpModel, name: "fuzz.skp")
    FuzzDocument.render(data, size, as: .inDesignDocument, name: "fuzz.indd")
    return 0
}
