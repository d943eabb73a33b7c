import Foundation
import GlanceCore
import GlanceRender
import GlanceTestSupport
import Testing

@testable import GlanceRendererProcess

/// What a renderer does with a job, branch by branch, in this process: the service's `handle`
/// with an ordinary thumbnailer, its PNG pieces collected here instead of written to standard
/// output.
@Suite("A renderer's handling of a job", .timeLimit(.minutes(10)))
struct RendererServiceTests {
    static let service = RendererService(
        confinement: RendererConfinement(sandboxed: false, memoryLimitBytes: 0, cpuSeconds: 0))
    static let thumbnailer = Thumbnailer()

    /// The bytes given to a sink, in order.
    final class Pieces: @unchecked Sendable {
        var bytes: [UInt8] = []
    }

    /// `job` on the asset at `path`, and the pieces sent before its outcome.
    static func handle(_ path: String, _ job: RenderJob) throws -> (outcome: RenderOutcome, pieces: [UInt8]) {
        let file = try OpenFile.regularFile(atPath: TestLocations.assets + "/" + path)
        let pieces = Pieces()
        let outcome = service.handle(job, file: file, thumbnailer: thumbnailer) { chunk in
            pieces.bytes += chunk
            return true
        }
        return (outcome, pieces.bytes)
    }

    @Test("a PNG: rendered, its leading bytes sent as pieces while it was made, the rest in the outcome, with a digest")
    func streamedPNG() throws {
        let (outcome, pieces) = try Self.handle(
            "png/photo-like.png", RenderJob(id: 3, name: "photo.png", format: .png))
        #expect(outcome.id == 3 && outcome.status == .rendered && outcome.contentType == .png)
        #expect(outcome.width == 1024 && outcome.height == 768)
        let whole = pieces + outcome.data
        #expect(!pieces.isEmpty, "the leading bytes went to the sink")
        #expect(whole.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(whole.suffix(8).starts(with: Array("IEND".utf8)))
        #expect(outcome.digest?.hasPrefix("sha256:") == true)
    }

    @Test("damage and an unknown type: failed and unsupported, each with its reason, no image")
    func failures() throws {
        let corrupt = try Self.handle("corrupt/truncated-header.jpg", RenderJob(id: 1, name: "photo.jpg")).outcome
        #expect(corrupt.status == .failed && corrupt.error?.contains("truncated JPEG data") == true)
        #expect(corrupt.data.isEmpty)
        let unknown = try Self.handle("corrupt/unknown.bin", RenderJob(id: 2, name: "data.bin")).outcome
        #expect(unknown.status == .unsupported && unknown.error?.contains("not a supported document type") == true)
    }

    @Test("a page the document lacks: failed, with the count of pages it has")
    func pageOutOfRange() throws {
        var job = RenderJob(id: 4, name: "two.pdf")
        job.page = 3
        let outcome = try Self.handle("pdf/a4-two-pages.pdf", job).outcome
        #expect(outcome.status == .failed)
        #expect(outcome.details?.pageCount == 2)
    }

    @Test("the file-size limit: a PNG past it is refused; a text, read from its start only, is not")
    func fileSizeLimit() throws {
        var job = RenderJob(id: 5, name: "rgb8.png")
        job.maxFileBytes = 100
        let refused = try Self.handle("png/rgb8.png", job).outcome
        #expect(refused.status == .failed && refused.error?.contains("limit on a document's size") == true)
        var text = RenderJob(id: 6, name: "notes.txt")
        text.maxFileBytes = 100
        let drawn = try Self.handle("text/latin-utf8.txt", text).outcome
        #expect(drawn.status == .rendered && drawn.contentType == .text)
        #expect(drawn.details?.textEncoding != nil && drawn.details?.lineCount != nil)
    }

    @Test("a text's content asked for: its UTF-8 and its line count, no image")
    func textContent() throws {
        var job = RenderJob(id: 7, name: "notes.txt")
        job.textContent = true
        let outcome = try Self.handle("text/latin-utf8.txt", job).outcome
        #expect(outcome.status == .rendered && outcome.format == nil)
        #expect(!outcome.data.isEmpty && String(validating: outcome.data, as: UTF8.self) != nil)
        #expect((outcome.text?.lineCount ?? 0) > 0)
    }

    @Test("pixels only: the raw RGBA of the thumbnail, no encoding, no digest")
    func pixelsOnly() throws {
        var job = RenderJob(id: 8, name: "rgb8.png")
        job.pixelsOnly = true
        let outcome = try Self.handle("png/rgb8.png", job).outcome
        #expect(outcome.status == .rendered && outcome.format == nil && outcome.digest == nil)
        #expect(outcome.data.count == outcome.width * outcome.height * 4)
    }

    @Test(
        "an office document in an ordinary renderer: handed on to the office lane, or drawn from the thumbnail it carries"
    )
    func officeTriage() throws {
        var lane = RenderJob(id: 9, name: "letter.odt", maxSide: 1024)
        lane.officeLane = true
        let handedOn = try Self.handle("office/letter.odt", lane).outcome
        #expect(handedOn.status == .unsupported && handedOn.handOff == .office)
        // A box the carried 362x512 thumbnail fills: drawn from it, even with a lane.
        var small = RenderJob(id: 10, name: "letter.odt", maxSide: 256)
        small.officeLane = true
        let carried = try Self.handle("office/letter.odt", small).outcome
        #expect(carried.status == .rendered && carried.handOff == nil && carried.contentType == .openDocumentText)
        // No lane: the carried thumbnail at its own size, with a warning saying so.
        let alone = try Self.handle("office/letter.odt", RenderJob(id: 11, name: "letter.odt")).outcome
        #expect(alone.status == .rendered && max(alone.sourceWidth, alone.sourceHeight) == 512)
        #expect(alone.warnings.contains { $0.contains("no LibreOffice renderer") })
    }

    @Test("a sound file without a cover: no picture, its length all the same; a video: no digest")
    func media() throws {
        let silent = try Self.handle("media/no-cover.flac", RenderJob(id: 12, name: "song.flac")).outcome
        #expect(silent.status != .rendered)
        #expect(silent.details?.media?.durationSeconds != nil)
        let clip = try Self.handle("media/fade-in.mp4", RenderJob(id: 13, name: "clip.mp4")).outcome
        #expect(clip.status == .rendered && clip.digest == nil, "a digest reads every byte of a video")
    }
}
