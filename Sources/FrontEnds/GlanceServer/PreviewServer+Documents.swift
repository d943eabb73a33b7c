import GlanceContainer
import GlanceCore
import Hummingbird

/// `GET /documents/PATH`: the original document, with `Range` support, read through a
/// descriptor opened beneath the container.
extension PreviewServer {
    /// Bytes read and sent at a time: the most a connection holds in the server while its
    /// client reads slowly or not at all (the next piece is read only once this one went to the
    /// socket). 64 KiB stays below the allocator's mmap threshold, and sends as fast as 256 KiB
    /// did on loopback.
    static let chunkSize = 64 * 1024

    /// The media type of an original: a text's with the charset its render detected (a browser
    /// would otherwise guess, and show Shift_JIS or Big5 garbled), where browsers know that charset
    /// (the Encoding Standard has no UTF-32: such a text goes without one).
    static func mediaType(of type: ContentType?, encoding: String?) -> String {
        let media = type?.mimeType ?? "application/octet-stream"
        guard type == .text, let encoding, !encoding.uppercased().hasPrefix("UTF-32") else { return media }
        return media + "; charset=" + encoding.lowercased()
    }

    func document(_ components: [Substring], request: Request, context: ServerRequestContext) async throws
        -> Response
    {
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
        let identity = file.identity()
        let record = stored.flatMap { stored in
            identity.map { FreshnessPolicy.describes(stored.record, $0) } == true ? stored.record : nil
        }
        var headers: HTTPFields = [
            .contentType: Self.mediaType(of: type, encoding: record?.details?.textEncoding), .acceptRanges: "bytes",
            .cacheControl: "no-cache", .contentDisposition: Self.disposition(of: path, type: type),
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
        if length == 0 { return Response(status: status, headers: headers) }
        let body = ResponseBody(contentLength: Int(length)) { writer in
            var offset = range.first
            while offset <= range.last {
                let count = Int(min(Int64(Self.chunkSize), range.last - offset + 1))
                // Read straight into the buffer that is sent: one copy of the bytes, not two.
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<count]), at: offset)
                }
                if read == 0 { break }
                try await context.untilWritable()
                try await writer.write(buffer)
                offset += Int64(read)
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}

extension PreviewServer {
    /// How an original is handed to the browser: images browsers draw and text are shown
    /// (`inline`), with a policy that runs nothing and loads nothing (``SecurityHeaders``: an
    /// SVG's scripts and references stay inert); a PDF, a TIFF or HEIC (which browsers cannot
    /// draw) or a file of an unknown type is saved (`attachment`), never opened in the browser,
    /// whose PDF viewer runs a document's scripts.
    /// The name is given as RFC 6266 says: an ASCII fallback and the exact bytes in UTF-8.
    static func disposition(of path: String, type: ContentType?) -> String {
        let shown = type.map { $0.browsersDraw || $0 == .text } ?? false
        let name = FileName.components(of: path).last ?? "document"
        let fallback = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "._- ".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
        let attributeCharacters = Set("!#$&+-.^_`|~".utf8)
        let encoded = FileName.encode(name).map { byte -> String in
            let isAlphanumeric =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            return isAlphanumeric || attributeCharacters.contains(byte)
                ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }.joined()
        return "\(shown ? "inline" : "attachment"); filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}

extension String {
    /// The string with `0`s in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
