import FuzzSupport
import GlanceCore
import GlanceRender

/// libFuzzer's entry point: one input rendered as a Mobipocket book (`make fuzz`): the Palm
/// database's record list, the MOBI and EXTH headers, the cover record's bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.render(data, size, as: .mobiBook, name: "fuzz.mobi")
    return 0
}
