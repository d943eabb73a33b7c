import FuzzSupport
import GlanceCore
import GlanceRender

/// libFuzzer's entry point: one input sniffed and rendered as a worker does (`make fuzz`), for
/// the documents that come in archives: libarchive's ZIP, RAR and 7-Zip readers under the
/// listing's limits, the EPUB package and chapter scanner, a comic book's page order, and the
/// picture inside handed to the image decoders. An input that sniffs as no archive is rendered
/// as a CBZ.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzDocument.sniffAndRender(data, size, fallback: .comicZip)
    return 0
}
