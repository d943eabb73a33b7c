import Foundation
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Turns attributes into what `glance list` and `glance show` print: aligned text or JSON with
/// stable field names.
public enum ListingFormatter {
    /// The JSON form of one document (field names are part of Glance's interface: keep them).
    public struct Row: Codable, Sendable, Equatable {
        /// One entry of the thumbnail dictionary, without its bytes.
        public struct Thumbnail: Codable, Sendable, Equatable {
            public var width: Int
            public var height: Int
            public var format: String
            public var bytes: Int
            /// The placeholder colour, `#rrggbb`.
            public var averageColour: String?
            /// The blurred placeholder, a ThumbHash in base64.
            public var thumbHash: String?
            /// The size key whose image this one is (`1024x1024`), when that one fits this box
            /// as it is and is not stored again; nil for an image stored under its own key.
            public var sameAs: String?
        }

        public var path: String
        public var name: String
        /// A PDF's page count and page sizes, a text's encoding (``DocumentDetails``).
        public var details: DocumentDetails?
        /// The content's digest when it was last rendered (`sha256:` and hex).
        public var digest: String?
        public var kind: String
        public var mimeType: String
        public var size: Int64
        public var modified: String
        public var state: String
        public var error: String?
        public var thumbnails: [String: Thumbnail]
        public var generatedAt: String?
        public var generatorVersion: String?

        public init(_ item: PromisedItemAttributes) {
            path = item.path
            name = item.name
            digest = item.digest
            details = item.details
            kind = item.kind
            mimeType = item.mimeType
            size = item.size
            modified = ListingFormatter.iso8601(item.modified)
            state = item.state.rawValue
            error = item.error
            thumbnails = [:]
            for image in item.thumbnails {
                thumbnails[image.sizeKey] = Thumbnail(
                    width: image.width, height: image.height, format: image.format.rawValue, bytes: image.byteCount,
                    averageColour: image.averageColour, thumbHash: image.thumbHash)
            }
            if var standard = thumbnails[ThumbnailImage.standardSizeKey] {
                standard.sameAs = ThumbnailImage.standardSizeKey
                for key in item.sizesServedByStandard { thumbnails[key] = standard }
            }
            generatedAt = item.generatedAt.map(ListingFormatter.iso8601)
            generatorVersion = item.generatorVersion
        }
    }

    /// `show`'s lines for a document's details: `pages       14, 595x842 pt` (or how many
    /// sizes the pages come in), `sheets      Budget, Notes`, `encoding    SHIFT_JIS`.
    public static func detailLines(_ details: DocumentDetails) -> [String] {
        var lines: [String] = []
        if let count = details.pageCount {
            var line = "pages       \(count)"
            if let runs = details.pageSizes {
                let sizes = Set(runs.map { "\(points($0.width))x\(points($0.height))" })
                line += sizes.count == 1 ? ", \(sizes.first!) pt" : ", in \(sizes.count) sizes"
            }
            lines.append(line)
        }
        if let names = details.pageNames, !names.isEmpty {
            lines.append("sheets      " + names.map { DisplayText.escaped($0) }.joined(separator: ", "))
        }
        if let encoding = details.textEncoding { lines.append("encoding    \(DisplayText.escaped(encoding))") }
        if let count = details.lineCount {
            let more = details.textIsLonger == true ? " in the first MiB" : ""
            lines.append("lines       \(count)\(more)")
        }
        for line in kindAttributes(details) {
            lines.append(line.label + String(repeating: " ", count: max(1, 12 - line.label.count)) + line.value)
        }
        return lines
    }

    /// What a video, a sound file, a raw photo or an e-book tells, as label and value, for
    /// `show` and the preview page.
    public static func kindAttributes(_ details: DocumentDetails) -> [(label: String, value: String)] {
        (details.media.map(mediaAttributes) ?? []) + (details.camera.map(cameraAttributes) ?? [])
            + (details.book.map(bookAttributes) ?? [])
    }

    /// A raw photo's details as label and value: `camera Canon EOS 5D Mark IV`, `taken
    /// 2024-05-17 10:30:00`, `image 6720x4480`, `picture the camera's preview`. Names are escaped.
    public static func cameraAttributes(_ camera: CameraDetails) -> [(label: String, value: String)] {
        var lines: [(label: String, value: String)] = []
        let name = [camera.make, camera.model].compactMap { $0 }.joined(separator: " ")
        if !name.isEmpty { lines.append(("camera", DisplayText.escaped(name))) }
        if let captured = camera.captured { lines.append(("taken", captured.replacingOccurrences(of: "T", with: " "))) }
        if let width = camera.width, let height = camera.height { lines.append(("image", "\(width)x\(height)")) }
        switch camera.picture {
        case .preview?: lines.append(("picture", "the camera's own preview"))
        case .developed?: lines.append(("picture", "developed from the sensor data"))
        case nil: break
        }
        return lines
    }

    /// An e-book's details as label and value: `title`, `author`, `cover` (how it was found).
    /// Names are escaped.
    public static func bookAttributes(_ book: BookDetails) -> [(label: String, value: String)] {
        var lines: [(label: String, value: String)] = []
        if let title = book.title { lines.append(("title", DisplayText.escaped(title))) }
        if let author = book.author { lines.append(("author", DisplayText.escaped(author))) }
        switch book.cover {
        case .coverMeta?: lines.append(("cover", "the picture the book names as its cover"))
        case .coverImage?: lines.append(("cover", "the picture marked cover-image"))
        case .firstImage?: lines.append(("cover", "the first chapter's first picture"))
        case .text?: lines.append(("cover", "none: the first chapter's text"))
        case nil: break
        }
        return lines
    }

    /// A video's or a sound file's details as label and value, for `show` and the preview page:
    /// `duration 1:02:03`, `video 1920x1080 hevc, 29.97 fps, HDR (PQ)`, `audio aac`, `picture a
    /// frame`. Codec names are checked (``MediaDetails/checked``): nothing here needs escaping.
    public static func mediaAttributes(_ media: MediaDetails) -> [(label: String, value: String)] {
        var lines: [(label: String, value: String)] = []
        if let seconds = media.durationSeconds { lines.append(("duration", MediaDetails.clock(seconds))) }
        if let codec = media.videoCodec {
            var parts = [codec]
            if let width = media.width, let height = media.height { parts[0] = "\(width)x\(height) \(codec)" }
            if let rate = media.frameRate { parts.append("\(decimal(rate, places: 2)) fps") }
            if let hdr = media.hdr { parts.append("HDR (\(hdr.rawValue)) shown tone-mapped") }
            lines.append(("video", parts.joined(separator: ", ")))
        }
        if let hasAudio = media.hasAudio { lines.append(("audio", hasAudio ? media.audioCodec ?? "yes" : "none")) }
        switch media.picture {
        case .cover: lines.append(("picture", "the cover picture"))
        case .frame: lines.append(("picture", "a frame of the video"))
        case .none?: lines.append(("picture", "none: no cover picture"))
        case nil: break
        }
        return lines
    }

    /// `29.97`, `25`: up to `places` decimals, without trailing zeros.
    static func decimal(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * scale).rounded()
        var text = String(Int(scaled / scale))
        var fraction = Int(scaled) % Int(scale)
        guard fraction > 0 else { return text }
        var digits = places
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let padded = String(fraction)
        text += "." + String(repeating: "0", count: digits - padded.count) + padded
        return text
    }

    /// Points to a tenth, without a zero fraction: `595`, `595.3`.
    static func points(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }

    /// The narrowest a shortened column gets: room for `failed: …` and a name's start.
    static let narrowestShortenedColumn = 12

    /// Column widths that fit `width` characters with two spaces between columns: the columns
    /// at `shrinking` (in that order: the state's reason, then the name) give up what is too
    /// much, down to ``narrowestShortenedColumn``; the others keep their width (a terminal too
    /// narrow even then wraps, as it would anyway).
    static func fitted(_ widths: [Int], into width: Int, shrinking: [Int]) -> [Int] {
        var widths = widths
        var excess = widths.reduce(0, +) + 2 * (widths.count - 1) - width
        for index in shrinking where excess > 0 && index < widths.count {
            let spare = max(0, widths[index] - narrowestShortenedColumn)
            let cut = min(spare, excess)
            widths[index] -= cut
            excess -= cut
        }
        return widths
    }

    /// `text` in at most `width` characters: as it is, or cut with `…` at the end.
    static func shortened(_ text: String, to width: Int) -> String {
        guard text.count > width, width > 0 else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// ISO 8601 with seconds, UTC (`2026-11-22T14:05:09Z`). Written out by hand from
    /// `gmtime_r`: Foundation's formatters cost more than the rest of a 10,000-row listing.
    public static func iso8601(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// `2026-11-22 14:05` in UTC: sortable, and the same on every machine whatever its locale.
    public static func shortDate(_ date: Date) -> String {
        let iso = iso8601(date)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    /// A JSON array of rows (or one object for `show`), pretty-printed with sorted keys.
    public static func json<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The `state` column: `failed: reason` spelled out.
    public static func stateText(_ item: PromisedItemAttributes) -> String {
        switch item.state {
        case .failed: return "failed: \(item.error ?? "unknown reason")"
        // A known kind with nothing to show (a sound file without a cover): why.
        case .unsupported where item.details != nil: return item.error.map { "unsupported: \($0)" } ?? "unsupported"
        default: return item.state.rawValue
        }
    }

    /// Sizes for people: `812 B`, `14.2 KB`, `3.1 MB`.
    public static func byteCount(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
    }

    /// An aligned table: name, kind, size, modified, state, thumbnail, and an `extra` column
    /// (a title and one cell per item, already safe to print) when given.
    public static func table(
        _ items: [PromisedItemAttributes], extra: (title: String, cells: [String])? = nil, width: Int? = nil
    ) -> String {
        var header = ["NAME", "KIND", "SIZE", "MODIFIED", "STATE", "THUMBNAIL"]
        if let extra { header.append(extra.title) }
        let rows = items.enumerated().map { index, item -> [String] in
            let thumbnail = item.standardThumbnail.map { "\($0.width)x\($0.height) \($0.format.rawValue)" } ?? "-"
            // Names and reasons are untrusted: escaped, so that no name can add a row or drive the
            // terminal.
            let cells = [
                DisplayText.escaped(item.path), item.kind, byteCount(item.size), shortDate(item.modified),
                DisplayText.escaped(stateText(item)), thumbnail,
            ]
            return extra.map { cells + [$0.cells[index]] } ?? cells
        }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() {
                widths[index] = max(widths[index], cell.count)
            }
        }
        if let width { widths = fitted(widths, into: width, shrinking: [4, 0]) }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let shown = shortened(cell, to: widths[index])
                return index == cells.count - 1
                    ? shown : shown.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}
