import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `JPEG2000Decoder` and the raster pipeline (`make fuzz`): Glance's reading of a JP2 file's boxes for its profile, OpenJPEG's header and reduced decode, and the shim's conversion of the components to rows.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .jpeg2000, name: "fuzz.jp2")
    return 0
}
