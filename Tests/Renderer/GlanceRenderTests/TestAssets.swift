import Foundation
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlanceRender

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the repository's `TestAssets/` folder from this file's path, and reads its manifest.
enum TestAssets {
    /// The absolute path of `TestAssets/`.
    static let root = TestLocations.assets

    /// The absolute path of an asset, given relative to `TestAssets/`.
    static func path(_ relative: String) -> String { root + "/" + relative }

    /// One row of `TestAssets/assets.tsv`.
    struct Entry: Sendable, CustomTestStringConvertible {
        let path: String
        let kind: String
        let outcome: String
        let width: Int?
        let height: Int?
        let note: String

        var testDescription: String { path }
        var expectsSuccess: Bool { outcome == "ok" }
        /// The lower-case fragment the error message must contain, for `error:...` rows.
        var expectedErrorFragment: String? {
            outcome.hasPrefix("error:") ? String(outcome.dropFirst("error:".count)) : nil
        }
    }

    /// Every row of the manifest.
    static let manifest: [Entry] = {
        guard let text = try? readText(path("assets.tsv")) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 5 else { return nil }
            return Entry(
                path: fields[0], kind: fields[1], outcome: fields[2], width: Int(fields[3]), height: Int(fields[4]),
                note: fields.count > 5 ? fields[5] : "")
        }
    }()

    /// Reads a whole small file as UTF-8 text.
    static func readText(_ path: String) throws -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// Reads a whole small file.
    static func readBytes(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw AssetError.missing(path) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    enum AssetError: Error { case missing(String) }
}

/// A scratch folder for one test, removed when the value is dropped.
final class ScratchFolder {
    let path: String

    init() {
        var template = Array("/tmp/glance-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to a file in the folder and returns its path.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let target = file(name)
        try AtomicFileWriter.write(bytes, to: target)
        return target
    }
}

/// Pixel statistics that tests compare instead of exact pixels.
enum PixelStatistics {
    /// The largest difference of a colour channel between `image` and `reference` over every
    /// `step`th pixel each way whose reference alpha is over 64, and how many pixels that was.
    /// `gray`: the image is gray, made of the reference's green. `alpha`: the alpha of every
    /// pixel looked at counts too.
    static func worstDifference(
        _ image: PixelBuffer, _ reference: PixelBuffer, step: Int = 1, gray: Bool = false, alpha: Bool = false
    ) -> (worst: Int, compared: Int) {
        var (worst, compared) = (0, 0)
        for y in stride(from: 0, to: reference.height, by: step) {
            for x in stride(from: 0, to: reference.width, by: step) {
                let (p, q) = (image.pixel(x: x, y: y), reference.pixel(x: x, y: y))
                if alpha { worst = max(worst, abs(Int(p.a) - Int(q.a))) }
                guard q.a > 64 else { continue }
                compared += 1
                let wanted = gray ? [q.g, q.g, q.g] : [q.r, q.g, q.b]
                for (got, want) in zip([p.r, p.g, p.b], wanted) { worst = max(worst, abs(Int(got) - Int(want))) }
            }
        }
        return (worst, compared)
    }

    /// Mean absolute difference per channel value between two images of one size (RGB only,
    /// alpha ignored), in 0...255.
    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y)
                let q = b.pixel(x: x, y: y)
                total += abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
            }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    /// Mean colour (r, g, b) of an image.
    static func meanColour(_ image: PixelBuffer) -> (r: Double, g: Double, b: Double) {
        var sums = (0, 0, 0)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                sums.0 += Int(p.r)
                sums.1 += Int(p.g)
                sums.2 += Int(p.b)
            }
        }
        let n = Double(image.width * image.height)
        return (Double(sums.0) / n, Double(sums.1) / n, Double(sums.2) / n)
    }

    /// Peak signal-to-noise ratio in dB over RGB.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var squared = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y)
                let q = b.pixel(x: x, y: y)
                for (u, v) in [(p.r, q.r), (p.g, q.g), (p.b, q.b)] {
                    let d = Double(Int(u) - Int(v))
                    squared += d * d
                }
            }
        }
        let mse = squared / Double(a.width * a.height * 3)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Peak signal-to-noise ratio in dB of luma alone (BT.601: 0.299 R + 0.587 G + 0.114 B), what
    /// a JPEG's luma quality decides.
    static func lumaPSNR(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        func luma(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Double {
            0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b)
        }
        var squared = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let d = luma(a.pixel(x: x, y: y)) - luma(b.pixel(x: x, y: y))
                squared += d * d
            }
        }
        let mse = squared / Double(a.width * a.height)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}

/// Decodes an image file at its own size (no scaling) through Glance's renderers.
func decodeFullSize(_ path: String) throws -> PixelBuffer {
    try renderDocument(path: path, maxSide: 1 << 20).thumbnail.image
}

/// A synthetic RGB test image: smooth gradients plus a few hard-edged bars.
func syntheticImage(width: Int, height: Int, alpha: Bool = false) -> PixelBuffer {
    let channels = alpha ? 4 : 3
    var bytes = [UInt8](repeating: 0, count: width * height * channels)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * channels
            bytes[i] = UInt8(x * 255 / max(1, width - 1))
            bytes[i + 1] = UInt8(y * 255 / max(1, height - 1))
            bytes[i + 2] = (x / max(1, width / 8)) % 2 == 0 ? 200 : 40
            if alpha { bytes[i + 3] = UInt8(255 - (x + y) * 255 / max(1, width + height - 2)) }
        }
    }
    return PixelBuffer(width: width, height: height, channels: channels, bytes: bytes)
}

/// Sniffs and renders the document at `path` the way a worker does: opened once, read through
/// its descriptor.
func renderDocument(
    path: String, maxSide: Int = ThumbnailGeometry.defaultMaxSide, maxPixels: Int = RenderRequest.defaultMaxPixels,
    page: Int = 1, thumbnailer: Thumbnailer = Thumbnailer()
) throws(ThumbnailError) -> (type: ContentType, thumbnail: RenderedThumbnail) {
    let file: OpenFile
    do { file = try OpenFile.regularFile(atPath: path) } catch { throw .unreadable(reason: error.description) }
    let (type, text, _, listing, document) = try thumbnailer.sniff(file, named: path)
    var request = RenderRequest(file: document, name: path, maxSide: maxSide, maxPixels: maxPixels)
    request.text = text
    request.listing = listing
    request.page = page
    return (type, try thumbnailer.render(request, as: type))
}

/// Sniffs the document at `path` through a descriptor, as a worker does.
func sniffDocument(path: String) throws(ThumbnailError) -> SniffResult {
    let file: OpenFile
    do { file = try OpenFile.regularFile(atPath: path) } catch { throw .unreadable(reason: error.description) }
    return try ContentSniffer.sniff(file: file, named: path).result
}
