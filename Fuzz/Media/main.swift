import FuzzSupport
import GlanceCore
import GlanceRender

/// libFuzzer's entry point: one input rendered through `MediaDecoder` and the raster pipeline
/// (`make fuzz`): FFmpeg's demuxer for the container the bytes sniff as (MP4's when none), the
/// frame chooser, the conversion and tone mapping, a cover handed to the image decoders.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let prefix = Array(UnsafeBufferPointer(start: data, count: min(size, ContentSniffer.prefixLength)))
    var type = ContentType.mpeg4Video
    if case .supported(let sniffed) = ContentSniffer.sniff(prefix: prefix, isWholeFile: true, fileName: "fuzz"),
        FormatFamily.media.contentTypes.contains(sniffed)
    {
        type = sniffed
    }
    FuzzDocument.render(data, size, as: type, name: "fuzz.\(type.conventionalExtensions.first ?? "mp4")")
    return 0
}
