import Foundation
import GlanceCore
import GlanceRender
import GlanceTestSupport
import Testing

@testable import GlancePipeline

/// Replies whose image came partly ahead, in pieces (``RendererReplyPiece``): how the coordinator
/// reads them, refuses what a worker may not send, and gets the image whole from a real worker.
@Suite("Worker replies in pieces", .timeLimit(.minutes(10)))
struct RendererReplyPieceTests {
    let job = RenderJob(id: 7, name: "a.png", maxSide: 1024)

    /// A rendered reply to ``job`` for `image`, of which the first `sent` bytes went ahead in
    /// pieces of at most `pieceBytes`: the bytes on the pipe.
    func wire(image: [UInt8], sent: Int, pieceBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var at = 0
        while at < sent {
            let count = min(pieceBytes, sent - at)
            bytes += RendererReplyPiece.line(count: count) + image[at..<(at + count)]
            at += count
        }
        var reply = RenderOutcome(id: 7, status: .rendered, format: .png, width: 1024, height: 10, data: image)
        reply.data = []
        bytes += try! JSONEncoder().encode(reply) + [0x0A]
        return bytes + image[sent...]
    }

    /// Feeds `bytes` to a reader `step` bytes at a time; every answer it gives.
    func read(_ bytes: [UInt8], step: Int) -> [RendererReplyReader.Next] {
        var reader = RendererReplyReader()
        var answers: [RendererReplyReader.Next] = []
        var at = 0
        while at < bytes.count {
            reader.append(bytes[at..<min(bytes.count, at + step)])
            at += step
            var next = reader.next(for: job)
            while next != .needMore {
                answers.append(next)
                if next == .invalid { return answers }
                next = reader.next(for: job)
            }
        }
        return answers
    }

    @Test("pieces, then the reply and the rest: the image whole, however the bytes arrive", arguments: [1, 7, 4096])
    func piecesJoined(step: Int) {
        let image = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let answers = read(wire(image: image, sent: 3000, pieceBytes: 1024), step: step)
        guard answers.count == 1, case .outcome(let outcome) = answers[0] else {
            Issue.record("\(answers)")
            return
        }
        #expect(outcome.data == image && outcome.byteCount == 5000)
    }

    @Test("a reply that failed after pieces drops them, and the next reply starts afresh")
    func failedDropsPieces() throws {
        var bytes = RendererReplyPiece.line(count: 3) + [1, 2, 3]
        bytes += try JSONEncoder().encode(RenderOutcome(id: 7, status: .failed, error: "corrupt")) + [0x0A]
        let image: [UInt8] = [9, 8, 7, 6]
        bytes += wire(image: image, sent: 2, pieceBytes: 1)
        let answers = read(bytes, step: 5)
        guard answers.count == 2, case .outcome(let failed) = answers[0], case .outcome(let rendered) = answers[1]
        else {
            Issue.record("\(answers)")
            return
        }
        #expect(failed.status == .failed && failed.data.isEmpty)
        #expect(rendered.data == image)
    }

    @Test(
        "a piece's line must be + and 1 to 9 digits, and pieces no longer than the image or the largest image",
        arguments: ["+0\n", "+01\n", "+1a\n", "+\n", "+1234567890\n", "+12345678901234", "+999999999\n"])
    func badPieceLines(line: String) {
        let answers = read(Array(line.utf8) + [UInt8](repeating: 0, count: 16), step: 64)
        #expect(answers == [.invalid])
    }

    @Test("pieces beyond the reply's byte count make it invalid")
    func piecesBeyondByteCount() {
        var bytes = wire(image: [1, 2, 3], sent: 0, pieceBytes: 1)
        bytes = RendererReplyPiece.line(count: 4) + [1, 2, 3, 4] + bytes
        #expect(read(bytes, step: 64) == [.invalid])
    }

    @Test("a real worker sends a large PNG thumbnail in pieces, and the pool hands on the image whole")
    func workerSendsPieces() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glance-reply-pieces-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Noise does not compress: the thumbnail's PNG is about 3 MB, a dozen pieces.
        var generator = SystemRandomNumberGenerator()
        let side = 1300
        let noise = (0..<(side * side * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = folder.appendingPathComponent("noise.png").path
        let png = try ImageEncoder.encode(
            PixelBuffer(width: side, height: side, channels: 3, bytes: noise), as: .png, content: .photographic)
        try Data(png).write(to: URL(fileURLWithPath: path))
        let pool = RendererPoolSupervisionTests().pool(renderers: 1, timeout: 30)
        try await pool.shuttingDown {
            let results = await RendererPoolSupervisionTests().run([(1, path, nil)], on: pool)
            guard case .finished(let outcome) = results[1] else {
                Issue.record("\(String(describing: results[1]))")
                return
            }
            #expect(outcome.status == .rendered && outcome.width == 1024 && outcome.height == 1024)
            #expect(outcome.data.count == outcome.byteCount)
            let chunks = try #require(PNGChunks(png: outcome.data))
            let idats = chunks.types.filter { $0 == "IDAT" }.count
            #expect(idats >= 3, "\(idats) IDAT chunks: the image came in pieces")
            // The same thumbnail rendered here in one piece has the same zlib stream.
            let whole = try Thumbnailer().render(
                RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path), as: .png, encodingAs: .png)
            guard case .encoded(let encoded) = whole else {
                Issue.record("not encoded as it was made")
                return
            }
            #expect(chunks.imageData == PNGChunks(png: encoded.data)?.imageData)
        }
    }
}
