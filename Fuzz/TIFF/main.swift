import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `TIFFDecoder` and the raster pipeline (`make fuzz`): libtiff's directory and strips or tiles read through the descriptor, a band at a time, orientation and ICC.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .tiff, name: "fuzz.tiff")
    return 0
}
