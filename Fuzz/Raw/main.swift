import FuzzSupport
import GlanceCore
import GlanceRender

/// libFuzzer's entry point: one input rendered through `RawDecoder` and the raster pipeline
/// (`make fuzz`): LibRaw's parsers for the raw kind the bytes sniff as (DNG's when none), its
/// preview handed to the JPEG decoder, or its sensor data developed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let prefix = Array(UnsafeBufferPointer(start: data, count: min(size, ContentSniffer.prefixLength)))
    var type = ContentType.dng
    if case .supported(let sniffed) = ContentSniffer.sniff(prefix: prefix, isWholeFile: true, fileName: "fuzz"),
        FormatFamily.cameraRaw.contentTypes.contains(sniffed)
    {
        type = sniffed
    }
    FuzzDocument.render(data, size, as: type, name: "fuzz.\(type.conventionalExtensions.first ?? "dng")")
    return 0
}
