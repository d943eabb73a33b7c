internal import CCompression
import HTTPTypes
import Hummingbird
import NIOCore

/// Sends the text answers (pages, the API's JSON, the stylesheet and the script) compressed with
/// gzip to a client that takes it: the grid's HTML for 62 documents is 70 kB, 7.6 kB compressed,
/// and its first screen at device pixel ratio 2 went from 1.08 MB to about 1.0 MB with it.
///
/// Only a whole answer (`200`) of one of ``compressedTypes``, between ``smallestBody`` and
/// ``largestBody`` bytes, without an entity tag or byte ranges of its own (those name the bytes
/// as they are), and never a thumbnail or an original.
///
/// Compression and secrets (BREACH): a page holds no secret of its own (sessions travel in
/// cookies, share links' tokens never appear in a page, and there are no form tokens), but it
/// does hold the names of documents, next to what a request puts there (`?pattern=`). A page
/// that another site makes a browser ask for, with the browser's credentials (HTTP Basic is
/// sent cross-site), is therefore never compressed: only requests that say they come from this
/// site (`Sec-Fetch-Site: same-origin` or `none`) or from no browser at all (no
/// `Sec-Fetch-Site`) are.
struct ResponseCompression: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The media types compressed.
    static let compressedTypes: Set<Substring> = ["text/html", "text/css", "text/javascript", "application/json"]
    /// Smaller answers go as they are: gzip's 18 bytes of framing would eat what it saves.
    static let smallestBody = 1024
    /// Larger ones too: the answer is held whole in memory to be compressed.
    static let largestBody = 32 << 20
    /// zlib's level. On the grid's 70 kB page: 5 gave 7.8 kB in 1.8 ms, 9 gave 7.6 kB in 3.5 ms,
    /// 1 gave 8.6 kB in 0.7 ms (Python's zlib, the same library, on a busy machine).
    static let level: Int32 = 5

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        // The type first: every thumbnail GET passes here, and a header lookup is all it costs.
        guard response.status == .ok, Self.isCompressible(response), Self.takesGzip(request),
            let length = response.body.contentLength, (Self.smallestBody...Self.largestBody).contains(length)
        else { return response }
        let collector = BodyCollector(capacity: length)
        try await response.body.write(collector.writer)
        let original = collector.bytes
        guard let compressed = Self.gzip(original), compressed.readableBytes < original.readableBytes else {
            response.body = ResponseBody(byteBuffer: original)
            return response
        }
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = String(compressed.readableBytes)
        response.headers[values: .vary].append("Accept-Encoding")
        response.body = ResponseBody(byteBuffer: compressed)
        return response
    }

    /// Whether `request` takes gzip (`Accept-Encoding` names it, or `*`, without `q=0`) and may be
    /// given it (see the type's note on secrets).
    static func takesGzip(_ request: Request) -> Bool {
        if request.isFromAnotherSite { return false }
        guard let accepted = request.headers[.acceptEncoding] else { return false }
        return accepted.split(separator: ",").contains { part in
            let fields = part.split(separator: ";")
            let coding = fields.first.map { $0.trimmingSpaces.lowercased() } ?? ""
            let refused = fields.dropFirst().contains { $0.filter { $0 != " " }.lowercased() == "q=0" }
            return !refused && (coding == "gzip" || coding == "*")
        }
    }

    /// Whether `response` is of a compressed type and names no bytes of its own (no entity tag,
    /// no ranges, no encoding yet).
    static func isCompressible(_ response: Response) -> Bool {
        guard response.headers[.contentEncoding] == nil, response.headers[.eTag] == nil,
            response.headers[.acceptRanges] == nil,
            let type = response.headers[.contentType]?.split(separator: ";").first?.trimmingSpaces.lowercased()
        else { return false }
        return compressedTypes.contains(Substring(type))
    }

    /// `bytes` as one gzip member, or nil when zlib fails.
    static func gzip(_ bytes: ByteBuffer) -> ByteBuffer? {
        let capacity = glance_gzip_bound(bytes.readableBytes)
        var written = 0
        let compressed = [UInt8](unsafeUninitializedCapacity: capacity) { output, count in
            written = bytes.withUnsafeReadableBytes { input in
                glance_gzip(input.baseAddress, input.count, level, output.baseAddress, capacity)
            }
            count = written
        }
        return written > 0 ? ByteBuffer(bytes: compressed) : nil
    }
}

/// Gathers a response body's bytes (its writer is handed away, so the bytes stay here). Used
/// within one request's task only.
private final class BodyCollector {
    var bytes: ByteBuffer

    init(capacity: Int) {
        bytes = ByteBuffer()
        bytes.reserveCapacity(capacity)
    }

    var writer: Writer { Writer(collector: self) }

    struct Writer: ResponseBodyWriter {
        let collector: BodyCollector

        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            collector.bytes.writeBuffer(&buffer)
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
