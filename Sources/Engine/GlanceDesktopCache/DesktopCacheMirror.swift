import GlanceCore
import Synchronization

/// Keeps the desktop's thumbnail cache in step with one container's store (`--xdg`): the
/// ``ThumbnailMirror`` the indexer tells of every document it saves.
///
/// A fresh document gets an entry of every size asked for, made from the renditions of its
/// render; a failed one gets failure entries; an unsupported one nothing (another thumbnailer may
/// handle its type). Entries that are valid already are left alone unless `rewrite` is set.
public final class DesktopCacheMirror: ThumbnailMirror {
    /// What the mirror did in one run, for the summary.
    public struct Report: Codable, Sendable, Equatable {
        /// A document whose entries could not be written, and why.
        public struct Failure: Codable, Sendable, Equatable {
            public var path: String
            public var error: String
        }

        /// The cache's folder.
        public var folder: String
        /// Documents whose thumbnail entries were written.
        public var written = 0
        /// Documents whose failure entries were written.
        public var failureEntries = 0
        /// Documents whose entries were valid already.
        public var unchanged = 0
        /// Documents whose entries could not be written.
        public var errors: [Failure] = []
    }

    public let cache: FreedesktopCache
    /// The container's canonical absolute path: documents' paths are relative to it.
    public let containerPath: String
    public let sizes: [CacheSize]
    public let rewrite: Bool
    private let report: Mutex<Report>

    /// A mirror of the container at `containerPath` (absolute, canonical: see
    /// ``FileURI/canonicalPath(_:relativeTo:)``) into `cache`, at `sizes`.
    public init(cache: FreedesktopCache, containerPath: String, sizes: [CacheSize], rewrite: Bool = false) {
        self.cache = cache
        self.containerPath = containerPath
        self.sizes = sizes.sorted(by: >)
        self.rewrite = rewrite
        report = Mutex(Report(folder: cache.root))
    }

    public var renditionSides: [Int] { sizes.map(\.side) }

    /// What the mirror has done so far.
    public var summary: Report { report.withLock { $0 } }

    /// The cache's view of the document a record describes.
    public func document(for record: DocumentRecord, imageSize: PixelSize? = nil) -> CacheDocument {
        let path = containerPath == "/" ? "/" + record.path : containerPath + "/" + record.path
        let isImage = record.contentType == .png || record.contentType == .jpeg
        return CacheDocument(
            absolutePath: path, identity: record.identity, mimeType: record.contentType?.mimeType,
            imageSize: isImage ? imageSize : nil)
    }

    public func holds(_ record: DocumentRecord) -> Bool {
        switch record.state {
        case .unsupported: return true
        case .failed: return cache.status(of: document(for: record)).failed
        case .fresh:
            let valid = cache.status(of: document(for: record)).valid
            return sizes.allSatisfy(valid.contains)
        }
    }

    public func update(_ record: DocumentRecord, renditions: [Rendition], sourceSize: PixelSize?) {
        if !rewrite && holds(record) {
            if record.state != .unsupported { report.withLock { $0.unchanged += 1 } }
            return
        }
        let target = document(for: record, imageSize: sourceSize)
        do throws(DesktopCacheError) {
            switch record.state {
            case .unsupported:
                return
            case .failed:
                try cache.writeFailure(for: target)
                report.withLock { $0.failureEntries += 1 }
            case .fresh:
                try cache.write(renditions, for: target)
                report.withLock { $0.written += 1 }
            }
        } catch {
            noteFailure(path: record.path, reason: error.description)
        }
    }

    public func noteFailure(path: String, reason: String) {
        report.withLock { $0.errors.append(Report.Failure(path: path, error: reason)) }
    }
}
