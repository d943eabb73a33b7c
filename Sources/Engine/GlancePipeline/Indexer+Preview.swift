import GlanceContainer
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A page of a document drawn larger than its thumbnail, for a preview. Not recorded: a preview
/// is made on demand and kept, if at all, by whoever asked for it.
public struct PagePreview: Sendable {
    /// The file the page was drawn from (a preview is valid while the document still has it).
    public var identity: FileIdentity
    /// What the renderer found the document to be.
    public var contentType: ContentType?
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var data: [UInt8]
    /// What the render learned (a PDF's pages).
    public var details: DocumentDetails?
}

/// A text document's content, decoded by the renderer, for reading.
public struct DocumentText: Sendable {
    /// The file the text was read from.
    public var identity: FileIdentity
    /// The text: checked to be UTF-8.
    public var text: String
    /// The encoding it was decoded from, as iconv names it.
    public var encoding: String
    /// How many lines `text` holds, and whether that is the whole document.
    public var summary: TextSummary
}

/// Why a preview was not made.
public enum PreviewFailure: Error, Sendable, Equatable {
    /// The document is gone.
    case notFound
    /// The document has no such page: it has `pageCount`.
    case noSuchPage(pageCount: Int)
    /// Text was asked for, and the document is not text.
    case notText
    /// The renderer could not draw it; the reason in the words every caller shows.
    case failed(String)
    /// The pool stopped.
    case cancelled
}

extension Indexer {
    /// Draws page `page` (from 1) of `path` to fit a `side`-pixel box, in the pool's preview lane,
    /// opened beneath the container as every render is. Nothing is recorded.
    public func preview(_ path: String, page: Int, side: Int) async -> Result<PagePreview, PreviewFailure> {
        let ran = await runOnDemand(path) { id in
            var job = RenderJob(
                id: id, name: path, maxSide: side, maxPixels: options.maxPixels, maxFileBytes: options.maxFileBytes,
                computeDigest: false)
            job.page = page
            job.readsPageSizes = false
            return job
        }
        let (result, opened): (JobResult, FileIdentity)
        switch ran {
        case .success(let ran): (result, opened) = ran
        case .failure(let failure): return .failure(failure)
        }
        if case .finished(let outcome) = result, outcome.status == .failed,
            let count = outcome.details?.checked?.pageCount, page > count
        {
            return .failure(.noSuchPage(pageCount: count))
        }
        guard case .finished(let outcome) = result, outcome.status == .rendered, let format = outcome.format else {
            return .failure(.failed(result.failureReason(naming: options.limitNames) ?? "no image"))
        }
        return .success(
            PagePreview(
                identity: opened, contentType: outcome.contentType, format: format, width: outcome.width,
                height: outcome.height, data: outcome.data, details: outcome.details?.checked))
    }

    /// The content of the text document `path` as UTF-8 (capped by the renderer: see
    /// `TextContent`), decoded in the sandboxed renderer in the pool's preview lane. A document
    /// that is not text fails with its reason.
    public func text(_ path: String) async -> Result<DocumentText, PreviewFailure> {
        let ran = await runOnDemand(path) { id in
            var job = RenderJob(
                id: id, name: path, maxPixels: options.maxPixels, maxFileBytes: options.maxFileBytes,
                computeDigest: false)
            job.textContent = true
            return job
        }
        let (result, opened): (JobResult, FileIdentity)
        switch ran {
        case .success(let ran): (result, opened) = ran
        case .failure(let failure): return .failure(failure)
        }
        if case .finished(let outcome) = result, outcome.status == .unsupported { return .failure(.notText) }
        // Not trusted: the renderer's bytes must be UTF-8 and its encoding name a name.
        guard case .finished(let outcome) = result, outcome.status == .rendered, let summary = outcome.text,
            let encoding = outcome.details?.checked?.textEncoding,
            let text = String(validating: outcome.data, as: UTF8.self)
        else {
            return .failure(.failed(result.failureReason(naming: options.limitNames) ?? "no text"))
        }
        return .success(DocumentText(identity: opened, text: text, encoding: encoding, summary: summary))
    }

    /// Runs the job `make` builds (from a fresh job id) on `path`, opened beneath the container,
    /// in the pool's preview lane; the result and the file it was made from. A file that changed
    /// while it was read is read again (at most ``attemptsPerDocument`` times).
    private func runOnDemand(_ path: String, _ make: (Int) -> RenderJob) async -> Result<
        (JobResult, FileIdentity), PreviewFailure
    > {
        for _ in 0..<Self.attemptsPerDocument {
            let file: OpenFile
            let opened: FileIdentity
            do throws(FileAccessError) {
                (file, opened) = try scanner.openWithIdentity(path)
            } catch {
                if case .system(let code) = error, code == ENOENT { return .failure(.notFound) }
                return .failure(.failed(ThumbnailError.unreadable(reason: error.description).description))
            }
            let job = make(renderCount.add(1, ordering: .relaxed).newValue)
            let result = await pool.run(job, file: file, lane: .preview)
            if case .cancelled = result { return .failure(.cancelled) }
            if file.identity() != opened || scanner.identity(of: path) != opened { continue }
            return .success((result, opened))
        }
        return .failure(.failed("the document kept changing while it was being read"))
    }
}
