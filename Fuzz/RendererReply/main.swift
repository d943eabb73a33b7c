import GlanceCore
import GlancePipeline

/// libFuzzer's entry point: bytes as a compromised renderer might send them, read by the
/// coordinator's reply reader for a job that asked for two renditions. Whatever the bytes, the
/// reader must answer need-more, an outcome or invalid, and never trap (`make fuzz`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let job = RenderJob(id: 7, name: "doc.png", renditions: [256, 128])
    var reader = RendererReplyReader()
    // Fed in two parts, as a pipe may split a reply; the first byte says where.
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    reader.append(bytes[..<split])
    for part in [bytes[split...], []] {
        reader.append(part)
        loop: while true {
            switch reader.next(for: job) {
            case .outcome(let outcome):
                precondition(outcome.data.count == outcome.byteCount, "an outcome carries its own bytes")
            case .needMore, .invalid: break loop
            }
        }
    }
    return 0
}
