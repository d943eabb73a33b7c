import GlanceContainer
import GlanceCore
import Hummingbird

/// `GET /documents/PATH`: the original document, with `Range` support, read through a
/// descriptor opened beneath the container.
extension PreviewServer {
    /// Bytes read and sent at a time.
    static let chunkSize = 256 * 1024

    func document(_ components: [Substring], request: Request) async throws -> Response {
        let path = try resolve(components)
        let file: OpenFile
        do {
            file = try indexer.scanner.open(path)
        } catch {
            throw ServerError.notFound
        }
        guard let size = file.identity()?.size else { throw ServerError.notFound }
        let stored = try? await indexer.store.document(at: path, includingImageData: false)
        let type = stored?.record.contentType ?? ContentType(named: path)
        var headers: HTTPFields = [
            .contentType: type?.mimeType ?? "application/octet-stream", .acceptRanges: "bytes",
            .cacheControl: "no-cache",
        ]
        let range: ByteRange
        let status: HTTPResponse.Status
        switch ByteRange.parse(request.headers[.range], size: size) {
        case .whole:
            range = ByteRange(first: 0, last: size - 1)
            status = .ok
        case .range(let requested):
            range = requested
            status = .partialContent
            headers[.contentRange] = "bytes \(requested.first)-\(requested.last)/\(size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        let length = max(0, range.count)
        headers[.contentLength] = String(length)
        if request.method == .head || length == 0 { return Response(status: status, headers: headers) }
        let body = ResponseBody(contentLength: Int(length)) { writer in
            var offset = range.first
            while offset <= range.last {
                let count = Int(min(Int64(Self.chunkSize), range.last - offset + 1))
                let bytes = try file.read(count: count, at: offset)
                if bytes.isEmpty { break }
                try await writer.write(ByteBuffer(bytes: bytes))
                offset += Int64(bytes.count)
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}
