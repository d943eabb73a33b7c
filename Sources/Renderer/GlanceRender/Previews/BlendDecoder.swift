import GlanceCore

/// Decodes a Blender file's own thumbnail (``BlendThumbnail``) for the ``RasterPipeline``.
final class BlendDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []
    private let thumbnail: BlendThumbnail

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let stored = try FileReader.readPrefix(of: request.file, maxBytes: BlendThumbnail.headLimit)
        thumbnail = try BlendThumbnail(head: BlendThumbnail.head(of: stored.bytes), format: type.displayName)
        header = RasterHeader(size: PixelSize(width: thumbnail.width, height: thumbnail.height))
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: 4, streamed: false)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        thumbnail.pixels.withUnsafeBufferPointer {
            rows.push(rows: $0.baseAddress!, stride: thumbnail.width * 4, count: thumbnail.height)
        }
    }
}
