/// Why a document has no thumbnail: the one error type that callers of the render layer see.
///
/// Each case's ``description`` is the reason shown to people after the file name
/// (`glance: photo.jpg: truncated JPEG data`); a refusal by a limit says which in ``limit``, and
/// the front door names its setting (``LimitNames``): the words here name no option. The leaf errors of the C libraries
/// (``JPEGError``, ``PNGError``, ``PopplerError``) are mapped to these cases where they arise.
public enum ThumbnailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not one of the supported document types. `detail` may say more.
    case unsupported(detail: String?)
    /// The file has no bytes at all (and is not named as text).
    case empty
    /// The file could not be read: it is missing, unreadable, or a folder.
    case unreadable(reason: String)
    /// The data is damaged; `format` names the format, `detail` is the decoder's own words.
    case corrupt(format: String, detail: String?)
    /// The PDF cannot be parsed (no valid structure, or no pages); `detail` is poppler's message.
    case malformedPDF(detail: String?)
    /// The data ends before the image does, before anything could be shown.
    case truncated(format: String)
    /// The PDF is encrypted with a user password.
    case encrypted
    /// A document other than a PDF that is encrypted with a password (an office document's
    /// encrypted package); `format` names its kind.
    case passwordProtected(format: String)
    /// An archive-based document (an office document's ZIP package) refused before anything in it
    /// was read or opened: too many entries, entries too large, a ratio of a bomb, or archives
    /// nested too deep; `detail` says which.
    case archiveRefused(format: String, detail: String)
    /// A page was asked for that the document does not have (pages count from 1; every document
    /// but a PDF has one).
    case pageOutOfRange(page: Int, pageCount: Int)
    /// The image or PDF file is larger than the file-size limit allows.
    case fileTooLarge(bytes: Int, limitBytes: Int)
    /// Decoding would need more pixels than the limit allows; `shrunkBy` is the reduction the
    /// decoder applies on load (a JPEG's DCT scaling: 2, 4 or 8), 1 when it decodes every pixel.
    case tooLarge(width: Int, height: Int, limitPixels: Int, shrunkBy: Int = 1)
    /// The decoder would need more working memory than allowed (huge progressive JPEGs).
    case needsTooMuchMemory(format: String, limitMegabytes: Int)
    /// Memory ran out (the worker's memory limit, usually).
    case outOfMemory(detail: String)
    /// A JPEG coding process that this libjpeg build does not decode (lossless, hierarchical).
    case unsupportedEncoding(format: String, detail: String)
    /// A library the document's format needs could not be loaded into the renderer (a renderer
    /// whose address space filled over its documents: `failed to map segment`). A passing state
    /// of that renderer, not a verdict on the document: it is drawn again by a fresh renderer, and
    /// recorded as failed, never as unsupported, when that fails too.
    case libraryUnavailable(library: String, detail: String)
    /// Rendering took longer than the time limit.
    case timedOut(seconds: Double)
    /// The renderer process died (a crash inside a C library).
    case rendererCrashed(signal: Int32)
    /// The renderer made a system call its sandbox forbids (a socket, exec, writing a file) and
    /// was killed: the document tried to escape, or a library does something new.
    case sandboxViolated
    /// The renderer used more CPU time than the limit allows.
    case cpuLimitExceeded(seconds: Int)
    /// The renderer was asked to confine itself and could not.
    case sandboxUnavailable
    /// Writing the thumbnail failed.
    case writeFailed(path: String, reason: String)
    /// A sound file (or a video container holding only sound) without a cover picture: nothing
    /// to show, and nothing wrong. Its `details` (the duration) are kept in the record, whose
    /// state is `unsupported` with this reason.
    case noPicture(format: String, details: DocumentDetails?)

    public var description: String {
        switch self {
        case .unsupported(let detail):
            if let detail { return "not a supported document type (\(detail))" }
            return "not a supported document type"
        case .empty:
            return "empty file"
        case .unreadable(let reason):
            return "cannot read the file: \(reason)"
        case .corrupt(let format, let detail):
            if let detail, !detail.isEmpty { return "corrupt \(format) data: \(detail)" }
            return "corrupt \(format) data"
        case .malformedPDF(let detail):
            if let detail, !detail.isEmpty { return "malformed PDF: \(detail)" }
            return "malformed PDF"
        case .truncated(let format):
            return "truncated \(format) data"
        case .encrypted:
            return "encrypted PDF, needs a password"
        case .passwordProtected(let format):
            return "encrypted \(format), needs a password"
        case .archiveRefused(let format, let detail):
            return "\(format) refused before reading it: \(detail)"
        case .pageOutOfRange(let page, let count):
            return "no page \(page): the document has \(count) page\(count == 1 ? "" : "s")"
        case .fileTooLarge(let bytes, let limit):
            let tenths = (bytes * 10 + (1 << 19)) >> 20
            let size = "\(tenths / 10).\(tenths % 10)"
            return "file of \(size) MiB exceeds the \(limit >> 20) MiB limit on a document's size"
        case .tooLarge(let width, let height, let limit, let shrunkBy):
            let named =
                limit >= 1_000_000 && limit % 1_000_000 == 0 ? "\(limit / 1_000_000)-megapixel" : "\(limit)-pixel"
            guard shrunkBy > 1 else { return "image of \(width)x\(height) exceeds the \(named) limit" }
            // The limit counts the pixels decoded, which a JPEG's DCT scaling reduces.
            let decoded = "\((width + shrunkBy - 1) / shrunkBy)x\((height + shrunkBy - 1) / shrunkBy)"
            return "image of \(width)x\(height), decoded at 1/\(shrunkBy) as \(decoded), exceeds the \(named) limit"
        case .needsTooMuchMemory(let format, let limit):
            return "\(format) needs more than \(limit) MB of memory to decode"
        case .outOfMemory(let detail):
            return "out of memory: \(detail)"
        case .unsupportedEncoding(let format, let detail):
            return "unsupported \(format) encoding: \(detail)"
        case .libraryUnavailable(let library, let detail):
            return "\(library) could not be loaded: \(detail)"
        case .timedOut(let seconds):
            return "timed out after \(Self.seconds(seconds)) s"
        case .rendererCrashed(let signal):
            return "renderer crashed (signal \(signal))"
        case .sandboxViolated:
            return "renderer violated its sandbox (a forbidden system call) and was killed"
        case .cpuLimitExceeded(let seconds):
            return "renderer used more than \(seconds) s of CPU time"
        case .sandboxUnavailable:
            return "renderer could not enter its sandbox: seccomp is unavailable here"
        case .writeFailed(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .noPicture(let format, _):
            return "\(format) with no cover picture: nothing to show"
        }
    }

    /// The limit this error is a refusal by, if any: its front door names how to raise it.
    public var limit: RenderLimit? {
        switch self {
        case .fileTooLarge: .maxFileSize
        case .tooLarge: .maxPixels
        case .outOfMemory: .memory
        case .timedOut: .time
        case .cpuLimitExceeded: .cpuTime
        case .sandboxUnavailable: .sandbox
        default: nil
        }
    }

    /// `30`, `1.5`, `0.001`: whole seconds without a fraction, others as given.
    static func seconds(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
