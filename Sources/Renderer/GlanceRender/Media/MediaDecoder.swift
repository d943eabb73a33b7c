import CMedia
import GlanceCore

/// Decodes videos and sound files for the ``RasterPipeline``, through FFmpeg (``MediaFile``):
///
/// - the file's cover or poster picture (an MP3's ID3 APIC, a FLAC's or an Ogg's PICTURE, an
///   M4A's `covr`, a Matroska attachment) when it has one at least as large as the box or as the
///   video's frame, decoded by the image decoders from a sealed file in memory;
/// - otherwise a key frame from 10% of the duration on that is neither near-black nor flat
///   (see `CMedia`'s chooser), with the stream's matrix and range, its sample aspect ratio and
///   its display matrix (a portrait phone clip stored landscape) applied, and PQ or HLG
///   tone-mapped to SDR (BT.2390's curve on the brightest component, BT.2020 to BT.709);
/// - Dolby Vision from its compatible base layer; profile 5, which has none, is refused.
///
/// A sound file without a cover throws ``ThumbnailError/noPicture(format:details:)`` with its
/// duration. The details (``MediaDetails``) go with the thumbnail either way.
///
/// A video's pages are the preview page's strip (``MediaDetails/stripLength``): page 1 is the
/// thumbnail, page N the key frame at (N - 1) / length of the duration.
final class MediaDecoder: RasterDecoder {
    /// The header, its details as the file said them when it was opened; ``header`` reads them
    /// again (a frame tells its transfer where the container did not).
    private let openedHeader: RasterHeader
    /// What this decoder noticed (a cover that could not be drawn, frames all dark); ``warnings``
    /// adds the cover decoder's.
    private var noticed: [String] = []
    var warnings: [String] { noticed + (cover?.warnings ?? []) }
    var conversionDone: ColourConversion? { cover?.conversionDone }

    private let file: MediaFile
    private let format: String
    /// Where the frame of the page asked for is (a share of the duration), nil for the thumbnail.
    private let position: Double?
    /// Where the picture comes from.
    private let picture: MediaDetails.PictureSource
    /// The cover's decoder and the file in memory it reads, when the cover is drawn.
    private let cover: (any RasterDecoder)?
    private let coverFile: OpenFile?

    var header: RasterHeader {
        var header = openedHeader
        var details = Self.details(file.currentInfo)
        details.media?.picture = picture
        header.details = details
        return header
    }

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        file = try MediaFile(file: request.file, type: type, maxPixels: request.maxPixels)
        let info = file.info
        let hasVideo = info.has_video != 0
        let stripPage = request.page > 1 && hasVideo
        if request.page > 1 && !hasVideo { throw .pageOutOfRange(page: request.page, pageCount: 1) }
        if request.page > MediaDetails.stripLength {
            throw .pageOutOfRange(page: request.page, pageCount: MediaDetails.stripLength)
        }
        var warnings: [String] = []
        var chosenCover: (decoder: any RasterDecoder, file: OpenFile)?
        if info.cover_bytes > 0, !stripPage {
            do throws(ThumbnailError) {
                let opened = try Self.openCover(file, request: request, colourTransforms: colourTransforms)
                if Self.coverServes(info, cover: opened.decoder.header.size, box: request.maxSide) {
                    chosenCover = opened
                }
            } catch {
                // A damaged cover: the frame, when there is one to draw instead.
                guard hasVideo else { throw error }
                warnings.append("the cover picture was not drawn: \(error)")
            }
        }
        cover = chosenCover?.decoder
        coverFile = chosenCover?.file
        position = stripPage ? Double(request.page - 1) / Double(MediaDetails.stripLength) : nil
        if let cover = chosenCover?.decoder {
            picture = .cover
            openedHeader = cover.header
        } else if hasVideo {
            if info.dolby_vision_profile > 0 && info.dolby_vision_compatibility == 0 {
                throw .unsupportedEncoding(
                    format: format,
                    detail:
                        "Dolby Vision profile \(info.dolby_vision_profile) has no base layer that shows without"
                        + " Dolby Vision's own processing; it is not drawn rather than drawn tinted")
            }
            picture = .frame
            openedHeader = RasterHeader(
                size: PixelSize(width: Int(info.width), height: Int(info.height)),
                orientation: Self.orientation(rotation: Int(info.rotation), mirrored: info.mirrored != 0),
                isLossy: true)
        } else if info.has_audio == 0 {
            throw .corrupt(format: format, detail: "no video or sound stream was found")
        } else {
            var details = Self.details(info)
            details.media?.picture = MediaDetails.PictureSource.none
            throw .noPicture(format: format, details: details)
        }
        noticed = warnings
    }

    /// The cover's own plan, or a reduction of the frame by 2, 4 or 8 in swscale (an area
    /// average) to the smallest that still covers the target, from which the pipeline's Lanczos
    /// filter makes the thumbnail; the pixel limit counts the frame as coded, all of it decoded.
    func plan(for target: PixelSize) -> RasterPlan {
        if let cover { return cover.plan(for: target) }
        var shrink = 1
        while shrink < 8, openedHeader.size.width / (shrink * 2) >= target.width,
            openedHeader.size.height / (shrink * 2) >= target.height
        {
            shrink *= 2
        }
        let size = PixelSize(
            width: (openedHeader.size.width + shrink - 1) / shrink,
            height: (openedHeader.size.height + shrink - 1) / shrink)
        return RasterPlan(
            size: size, shrink: shrink, limitedPixels: Int(file.info.coded_width) * Int(file.info.coded_height))
    }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        if let cover { return try cover.start(plan) }
        let choice = try file.decodeFrame(size: plan.size, position: position)
        var chosen = "the key frame"
        if choice.time >= 0 { chosen += " at \(MediaDetails.clock(choice.time))" }
        if choice.all_flat != 0 {
            noticed.append(
                "\(chosen) drawn: all \(choice.judged) frames judged were dark or flat, it had the most detail")
        }
        return RasterRows(size: plan.size, channels: 3, streamed: false)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        if let cover { return try cover.read(into: rows) }
        rows.pushInBands { first, count, out in file.readRows(from: first, count: count, into: out) }
    }

    /// Whether the cover (of `cover` pixels, as its header says) is drawn rather than a frame:
    /// always for sound; for a video, when the cover is at least the box or at least the frame on
    /// its longer side (a poster smaller than both would be enlarged, a frame would not).
    static func coverServes(_ info: glance_media_info, cover: PixelSize, box: Int) -> Bool {
        guard info.has_video != 0 else { return true }
        return max(cover.width, cover.height) >= min(box, max(Int(info.width), Int(info.height)))
    }

    /// The cover picture's decoder, over a sealed file in memory holding its bytes.
    private static func openCover(
        _ file: MediaFile, request: RenderRequest, colourTransforms: ColourTransformCache
    ) throws(ThumbnailError) -> (decoder: any RasterDecoder, file: OpenFile) {
        guard let coverFile = file.coverFile() else {
            throw .unreadable(reason: "the cover picture could not be copied into memory")
        }
        let decoder = try EmbeddedPicture.decoder(
            for: coverFile, as: "the cover picture", request: request, colourTransforms: colourTransforms)
        return (decoder, coverFile)
    }

    /// The turn a display matrix's rotation (degrees clockwise) and mirroring make, as EXIF
    /// names them (mirrored first, then turned).
    static func orientation(rotation: Int, mirrored: Bool) -> ExifOrientation {
        switch (rotation, mirrored) {
        case (90, false): .right
        case (180, false): .down
        case (270, false): .left
        case (0, true): .upMirrored
        case (90, true): .rightMirrored
        case (180, true): .downMirrored
        case (270, true): .leftMirrored
        default: .up
        }
    }

    /// What the file says of itself, as the record keeps it.
    static func details(_ info: glance_media_info) -> DocumentDetails {
        var media = MediaDetails()
        if info.duration >= 0 { media.durationSeconds = info.duration }
        if info.has_video != 0 {
            let turned = info.rotation == 90 || info.rotation == 270
            media.width = Int(turned ? info.height : info.width)
            media.height = Int(turned ? info.width : info.height)
            media.videoCodec = String(fixedCText: info.video_codec)
            if info.frame_rate > 0 { media.frameRate = info.frame_rate }
            if info.dolby_vision_profile > 0 {
                media.hdr = .dolbyVision
            } else if info.transfer == GLANCE_MEDIA_PQ {
                media.hdr = .pq
            } else if info.transfer == GLANCE_MEDIA_HLG {
                media.hdr = .hlg
            }
        }
        media.hasAudio = info.has_audio != 0
        if info.has_audio != 0 { media.audioCodec = String(fixedCText: info.audio_codec) }
        return DocumentDetails(media: media)
    }
}
