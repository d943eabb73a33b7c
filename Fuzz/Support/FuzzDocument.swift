internal import CFileAccess
import GlanceCore
import GlanceRender

/// What every decoder fuzzer does with one input: put the bytes in a sealed memory file (as the
/// coordinator hands a worker its document) and render them as the worker would, with a small
/// box and pixel limit so that each run stays short. Errors are the expected outcome; only a
/// crash or a sanitizer report is a finding.
public enum FuzzDocument {
    /// The box thumbnails fit while fuzzing, and the pixel limit (16 megapixels).
    public static let maxSide = 256
    public static let maxPixels = 16_000_000

    /// The input as an open file, or nil if no memory file can be made.
    public static func open(_ data: UnsafePointer<UInt8>, _ size: Int) -> OpenFile? {
        let descriptor = glance_memory_file(data, size)
        return descriptor >= 0 ? OpenFile(adopting: descriptor) : nil
    }

    /// Renders the input with `renderer` as a document called `name`.
    public static func render(
        _ data: UnsafePointer<UInt8>, _ size: Int, with renderer: some DocumentRenderer, name: String
    ) {
        guard let file = open(data, size) else { return }
        let request = RenderRequest(file: file, name: name, maxSide: maxSide, maxPixels: maxPixels)
        _ = try? renderer.render(request)
    }

    /// Renders page `page` of the input as a document of `type` through a ``Thumbnailer``: a
    /// raster format through the one raster pipeline over its decoder.
    public static func render(
        _ data: UnsafePointer<UInt8>, _ size: Int, as type: ContentType, name: String, page: Int = 1
    ) {
        guard let file = open(data, size) else { return }
        var request = RenderRequest(file: file, name: name, maxSide: maxSide, maxPixels: maxPixels)
        request.page = page
        _ = try? Thumbnailer().render(request, as: type)
    }

    /// Renders the input as a document of `type` through a ``Thumbnailer`` asked to encode as
    /// `format` while it renders (the streamed PNG path), as a worker does without renditions.
    public static func renderEncoding(
        _ data: UnsafePointer<UInt8>, _ size: Int, as type: ContentType, format: ImageFormat, name: String
    ) {
        guard let file = open(data, size) else { return }
        let request = RenderRequest(file: file, name: name, maxSide: maxSide, maxPixels: maxPixels)
        _ = try? Thumbnailer().render(request, as: type, encodingAs: format)
    }

    /// Sniffs the input as a worker does (reading its archive's listing when it is one) and
    /// renders it as what it sniffed as, or as `fallback` when it sniffs as nothing.
    public static func sniffAndRender(_ data: UnsafePointer<UInt8>, _ size: Int, fallback: ContentType) {
        guard let file = open(data, size) else { return }
        let thumbnailer = Thumbnailer()
        let type = (try? thumbnailer.sniff(file, named: "fuzz").type) ?? fallback
        let request = RenderRequest(file: file, name: "fuzz", maxSide: maxSide, maxPixels: maxPixels)
        _ = try? thumbnailer.render(request, as: type)
    }
}
