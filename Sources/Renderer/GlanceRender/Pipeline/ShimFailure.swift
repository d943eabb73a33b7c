internal import CLibraryLoader
import GlanceCore

extension ThumbnailError {
    /// The error a shim (libheif, LibRaw, FFmpeg, libarchive, gdk-pixbuf, giflib, libwebp)
    /// reports as `failure`, with the shim's `reason`, for a document of `format`: the one place
    /// those shims' failures become a ``ThumbnailError``. `limitPixels` is the limit a picture
    /// past it was held to (its size is the reason, `WIDTHxHEIGHT`).
    init(_ failure: glance_failure, reason: String, format: String, limitPixels: Int = 0) {
        switch failure {
        case GLANCE_FAILURE_TRUNCATED: self = .truncated(format: format)
        case GLANCE_FAILURE_UNREADABLE: self = .unreadable(reason: reason)
        case GLANCE_FAILURE_UNSUPPORTED, GLANCE_FAILURE_REFUSED:
            self = .unsupportedEncoding(format: format, detail: reason)
        case GLANCE_FAILURE_TOO_LARGE:
            let sides = reason.split(separator: "x").compactMap { Int($0) }
            self = .tooLarge(width: sides.first ?? 0, height: sides.last ?? 0, limitPixels: limitPixels)
        case GLANCE_FAILURE_PAST_LIMIT: self = .archiveRefused(format: format, detail: reason)
        case GLANCE_FAILURE_ENCRYPTED: self = .passwordProtected(format: format)
        case GLANCE_FAILURE_OUT_OF_MEMORY: self = .outOfMemory(detail: reason)
        default: self = .corrupt(format: format, detail: reason)
        }
    }
}
