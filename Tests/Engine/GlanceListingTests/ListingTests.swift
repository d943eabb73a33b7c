import Foundation
import GlanceCore
import GlanceStore
import Testing

@testable import GlanceListing

@Suite("Listing", .timeLimit(.minutes(10)))
struct ListingTests {
    static func attributes(path: String, state: DocumentState?, changed: Bool = false) -> PromisedItemAttributes {
        let identity = FileIdentity(device: 1, inode: 2, size: 3_000, modifiedNanoseconds: 1_700_000_000_123_456_789)
        var stored: StoredDocument?
        if let state {
            let record = DocumentRecord(
                path: path, identity: identity, contentType: .jpeg, state: state,
                error: state == .failed ? "truncated \"JPEG\" data\n\tsee \\ here" : nil, generatorVersion: "0.1.0",
                generatedAt: Date(timeIntervalSince1970: 1_700_000_100))
            let images =
                state == .fresh ? [ThumbnailImage(format: .jpeg, width: 1024, height: 683, data: [1, 2, 3])] : []
            stored = StoredDocument(record: record, thumbnails: images)
        }
        var current = identity
        if changed { current.size += 1 }
        return PromisedItemAttributes(
            path: path, identity: current, stored: stored,
            policy: FreshnessPolicy(generatorVersion: "0.1.0", sizes: .none))
    }

    @Test("states: fresh, stale, missing, failed, unsupported")
    func states() {
        #expect(Self.attributes(path: "a.jpg", state: .fresh).state == .fresh)
        #expect(Self.attributes(path: "a.jpg", state: .fresh, changed: true).state == .stale)
        #expect(Self.attributes(path: "a.jpg", state: nil).state == .missing)
        #expect(Self.attributes(path: "a.jpg", state: .failed).state == .failed)
        #expect(Self.attributes(path: "a.bin", state: .unsupported).state == .unsupported)
        // Never rendered: the kind is guessed from the name, and there is no thumbnail.
        let missing = Self.attributes(path: "notes.TXT", state: nil)
        #expect(missing.contentType == .text && missing.thumbnails.isEmpty)
    }

    @Test("the hand-written JSON is exactly what JSONEncoder writes for the same rows")
    func jsonMatchesEncoder() {
        let rows = [
            Self.attributes(path: "dir/ünïcode photo.jpg", state: .fresh),
            Self.attributes(path: "broken.jpg", state: .failed),
            Self.attributes(path: "new.pdf", state: nil),
            Self.attributes(path: "odd/\"quoted\" back\\slash\ttab\nline\u{01}\u{1F}\u{7F}.txt", state: .fresh),
        ].map(ListingFormatter.Row.init)
        // Details: a PDF's pages in whole and fractional points, a text's encoding, and none.
        var withDetails = rows
        withDetails[0].details = DocumentDetails(
            pageCount: 14,
            pageSizes: [.init(width: 595.276, height: 841.89, count: 13), .init(width: 842, height: 595, count: 1)])
        withDetails[1].details = DocumentDetails(textEncoding: "SHIFT_JIS", lineCount: 20_000, textIsLonger: true)
        withDetails[2].details = DocumentDetails(
            pageCount: 2, pageSizes: [], textEncoding: "UTF-8", lineCount: 0, textIsLonger: false)
        withDetails[3].details = DocumentDetails()
        // A video's and a sound file's details.
        var video = rows[0]
        video.details = DocumentDetails(
            media: MediaDetails(
                durationSeconds: 3723.48, width: 1080, height: 1920, videoCodec: "hevc", frameRate: 29.97, hdr: .pq,
                hasAudio: true, audioCodec: "aac", picture: .frame))
        var sound = rows[1]
        sound.details = DocumentDetails(
            media: MediaDetails(
                durationSeconds: 2, hasAudio: true, audioCodec: "flac", picture: MediaDetails.PictureSource.none))
        // A workbook's sheets, named (a quote, a slash, a backslash and a non-ASCII letter).
        var workbook = rows[2]
        workbook.details = DocumentDetails(
            pageCount: 3, pageSizes: [.init(width: 768, height: 543, count: 3)],
            pageNames: ["Budget", "Q2 \"figures\"/a\\b", "Notizen ü"])
        // A raw photo's camera and an e-book's title and author (quotes, a non-ASCII letter).
        var photo = rows[3]
        photo.details = DocumentDetails(
            camera: CameraDetails(
                make: "Canon", model: "EOS \"R5\"", captured: "2024-05-17T10:30:00", width: 8192, height: 5464,
                picture: .preview))
        var book = rows[0]
        book.details = DocumentDetails(
            pageCount: 1, book: BookDetails(title: "Café \\ Bar", author: "Ann Author", cover: .coverImage))
        withDetails += [video, sound, workbook, photo, book]
        // A size the 1024 answers for (listed with `sameAs`).
        if var standard = withDetails[0].thumbnails[ThumbnailImage.standardSizeKey] {
            standard.sameAs = ThumbnailImage.standardSizeKey
            withDetails[0].thumbnails["512x512"] = standard
        }
        #expect(withDetails[0].thumbnails["512x512"]?.sameAs != nil)
        #expect(ListingJSONWriter.array(withDetails) == ListingFormatter.json(withDetails))
        #expect(ListingJSONWriter.array(rows) == ListingFormatter.json(rows))
        #expect(ListingJSONWriter.array([]) == ListingFormatter.json([ListingFormatter.Row]()))
    }

    @Test("a workbook's sheet names: listed by show, escaped, and checked when a store or a renderer hands them over")
    func sheetNames() {
        let details = DocumentDetails(
            pageCount: 2, pageSizes: [.init(width: 768, height: 543, count: 2)], pageNames: ["Budget", "Q2\u{1B}[2J"])
        let checked = details.checked
        #expect(checked?.pageNames == ["Budget", "Q2 [2J"], "a control character becomes a space")
        #expect(ListingFormatter.detailLines(checked!).contains("sheets      Budget, Q2 [2J"))
        // More names than pages: dropped, the pages kept.
        let more = DocumentDetails(pageCount: 1, pageNames: ["a", "b"]).checked
        #expect(more?.pageCount == 1 && more?.pageNames == nil)
        // A long name is cut.
        let long = DocumentDetails(pageCount: 1, pageNames: [String(repeating: "x", count: 500)]).checked
        #expect(long?.pageNames?.first?.count == DocumentDetails.maximumPageNameLength)
    }

    @Test("a video's details read as people say them, in show and on the preview page")
    func mediaLines() {
        let media = MediaDetails(
            durationSeconds: 3723.48, width: 1080, height: 1920, videoCodec: "hevc", frameRate: 29.97, hdr: .hlg,
            hasAudio: false, picture: .frame)
        let lines = ListingFormatter.detailLines(DocumentDetails(media: media))
        #expect(
            lines == [
                "duration    1:02:03", "video       1080x1920 hevc, 29.97 fps, HDR (HLG) shown tone-mapped",
                "audio       none", "picture     a frame of the video",
            ])
        #expect(MediaDetails.clock(59.6) == "1:00" && MediaDetails.clock(7) == "0:07")
        #expect(
            ListingFormatter.decimal(25, places: 2) == "25" && ListingFormatter.decimal(23.976, places: 2) == "23.98")
        #expect(ListingFormatter.decimal(0.05, places: 2) == "0.05")
        // What a store or a renderer hands over is checked: a codec name that could carry markup or
        // control characters is dropped, and so is a size out of range.
        let hostile = MediaDetails(
            durationSeconds: .nan, width: 0, height: 10, videoCodec: "<script>", frameRate: 1e9, hasAudio: true,
            audioCodec: "a\u{1B}[2J")
        #expect(hostile.checked == MediaDetails(hasAudio: true))
        #expect(DocumentDetails(media: MediaDetails()).checked == nil)
    }

    @Test("a raw photo's and an e-book's details read as people say them, names escaped, and are checked")
    func cameraAndBookLines() {
        let camera = CameraDetails(
            make: "Canon", model: "EOS R5", captured: "2024-05-17T10:30:00", width: 8192, height: 5464,
            picture: .preview)
        #expect(
            ListingFormatter.detailLines(DocumentDetails(camera: camera)) == [
                "camera      Canon EOS R5", "taken       2024-05-17 10:30:00", "image       8192x5464",
                "picture     the camera's own preview",
            ])
        let book = BookDetails(title: "Notes\u{1B}[2J", author: "Ann", cover: .text)
        #expect(
            ListingFormatter.detailLines(DocumentDetails(book: book.checked)) == [
                "title       Notes [2J", "author      Ann", "cover       none: the first chapter's text",
            ])
        // What a renderer or a store hands over is checked: a control character, a time that is no
        // time, a size out of range, a name past its length.
        let hostile = CameraDetails(
            make: "Ni\u{7}kon", model: String(repeating: "m", count: 500), captured: "2024-13-40T99:00:00",
            width: 0, height: 5)
        #expect(hostile.checked == CameraDetails(make: "Ni kon", model: String(repeating: "m", count: 63)))
        #expect(CameraDetails(captured: "2024-05-17 10:30:00").checked == nil)
        #expect(
            CameraDetails.timestamp(year: 2024, month: 5, day: 7, hour: 9, minute: 3, second: 1)
                == "2024-05-07T09:03:01")
        #expect(CameraDetails.timestamp(year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0) == nil)
        #expect(BookDetails(title: " \n\t ").checked == nil)
        #expect(
            BookDetails(title: String(repeating: "t", count: 900)).checked?.title?.count == BookDetails.maximumLength)
        #expect(BookDetails.cleaned("A\n  Tale\tof  Two") == "A Tale of Two")
    }

    @Test("patterns match the relative path; '*' crosses folders")
    func patterns() {
        let item = Self.attributes(path: "albums/2024/beach.jpg", state: .fresh)
        #expect(ListingQuery(pattern: "*.jpg").matches(item))
        #expect(ListingQuery(pattern: "albums/*").matches(item))
        #expect(!ListingQuery(pattern: "*.png").matches(item))
        #expect(ListingQuery(contentType: .jpeg, state: .fresh).matches(item))
        #expect(!ListingQuery(state: .stale).matches(item))
    }

    @Test("dates are ISO 8601 in UTC; sizes read like people write them")
    func formatting() {
        #expect(ListingFormatter.iso8601(Date(timeIntervalSince1970: 1_700_000_000.9)) == "2023-11-14T22:13:20Z")
        #expect(ListingFormatter.shortDate(Date(timeIntervalSince1970: 1_700_000_000)) == "2023-11-14 22:13")
        #expect(ListingFormatter.byteCount(999) == "999 B")
        #expect(ListingFormatter.byteCount(14_200) == "14 KB")
        #expect(ListingFormatter.byteCount(3_100_000) == "3.1 MB")
    }

    @Test("on a terminal the table fits its width: the reason, then the name, shortened with …; unfitted for a pipe")
    func tableFitsTerminal() {
        var failed = Self.attributes(path: "scans/2026/a very long folder name/page-000123.jpg", state: .failed)
        failed.error = "image of 65536x65536 exceeds the 100-megapixel limit (--max-pixels)"
        let rows = [failed, Self.attributes(path: "a.jpg", state: .fresh)]
        let wide = ListingFormatter.table(rows)
        #expect(wide.split(separator: "\n").contains { $0.count > 120 })
        #expect(wide.contains("(--max-pixels)"))
        for width in [120, 80] {
            let fitted = ListingFormatter.table(rows, width: width)
            let lines = fitted.split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= width }, "\(width):\n\(fitted)")
            #expect(fitted.contains("…") && fitted.contains("1024x683 jpeg"))
        }
        // Wide enough: nothing changes.
        #expect(ListingFormatter.table(rows, width: 1000) == wide)
    }
}
