import FuzzSupport
import GlanceCore
import GlanceRender

/// libFuzzer's entry point: one input rendered as a Blender file (`make fuzz`): its header, the
/// walk of its block headers to the thumbnail, the thumbnail's bounds, and for a gzip or
/// Zstandard input the inflating of its start.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .blenderScene, name: "fuzz.blend")
    return 0
}
