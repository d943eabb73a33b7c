import FuzzSupport
import GlanceRender

/// libFuzzer's entry point: one input sniffed as the worker sniffs it (a compressed one's start
/// decompressed and sniffed), its encoding detected, and the decoded text laid out on a page, as
/// pixels and as a PNG encoded from cairo's surface (`make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let file = FuzzDocument.open(data, size) {
        _ = try? Thumbnailer().sniff(file, named: "fuzz.txt")
    }
    if let decoded = TextEncodingDetector.detect(bytes, isWholeFile: true, namedAsText: true) {
        _ = try? TextRenderer().render(decoded, maxSide: FuzzDocument.maxSide)
    }
    FuzzDocument.renderEncoding(data, size, as: .text, format: .png, name: "fuzz.txt")
    return 0
}
