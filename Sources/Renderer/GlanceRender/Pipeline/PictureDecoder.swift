import GlanceCore

/// A decoder that finds a picture inside its file (an icon's largest, a model's preview, a page
/// thumbnail) and hands every step to that picture's own decoder: the one place those steps are
/// passed on.
protocol PictureDecoder: RasterDecoder {
    /// The decoder of the picture found.
    var picture: any RasterDecoder { get }
}

extension PictureDecoder {
    var header: RasterHeader { picture.header }
    var warnings: [String] { picture.warnings }
    var conversionDone: ColourConversion? { picture.conversionDone }
    func plan(for target: PixelSize) -> RasterPlan { picture.plan(for: target) }
    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows { try picture.start(plan) }
    func read(into rows: Downscaler) throws(ThumbnailError) { try picture.read(into: rows) }
}
