import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input rendered through `XPSRenderer` (`make fuzz`): libgxps's reading of the package (its ZIP through libarchive, its XML parts) from a file in memory, and the page drawn on cairo.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .xps, name: "fuzz.xps")
    return 0
}
