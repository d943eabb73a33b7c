internal import CFileAccess
import Foundation
import GlanceContainer
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Filling a mirror (the desktop's cache) from the store, for documents that were fresh before
/// the mirror was asked for: their stored thumbnails are scaled to the mirror's sizes in a
/// worker, and no document is decoded again.
extension Indexer {
    /// What ``fillMirror(progress:)`` did.
    public struct MirrorFill: Sendable, Equatable {
        /// Records whose mirror entries were already there.
        public var held = 0
        /// Fresh documents whose entries were made from their stored thumbnails.
        public var filled = 0
        /// Failed documents whose failure entries were written.
        public var failureEntries = 0
    }

    /// Brings the mirror up to date for every record that describes its file as it is now.
    /// Records made after `savedSince` (by the batch that just ran, which mirrored each as it saved
    /// it) are passed over.
    public func fillMirror(
        savedSince: Date = .distantFuture, progress: @escaping @Sendable (GenerationEvent) -> Void = { _ in }
    ) async throws(StoreError) -> MirrorFill {
        var fill = MirrorFill()
        guard let mirror = options.mirror else { return fill }
        var toFill: [DocumentRecord] = []
        var after: String?
        while true {
            let page = try await store.documents(after: after, limit: 500)
            guard let last = page.last else { break }
            after = last.record.path
            for stored in page {
                let record = stored.record
                guard record.state != .unsupported, record.generatedAt < savedSince,
                    let now = scanner.identity(of: record.path),
                    FreshnessPolicy.describes(record, now)
                else { continue }
                if mirror.holds(record) {
                    fill.held += 1
                } else if record.state == .failed {
                    mirror.update(record, renditions: [], sourceSize: nil)
                    fill.failureEntries += 1
                } else {
                    toFill.append(record)
                }
            }
        }
        guard !toFill.isEmpty else { return fill }
        progress(.planned(total: toFill.count))
        let window = pool.configuration.renderers * 2
        var done = 0
        await withTaskGroup(of: (String, Bool).self) { group in
            var next = 0
            func startNext() {
                guard next < toFill.count, !Task.isCancelled else { return }
                let record = toFill[next]
                next += 1
                group.addTask { (record.path, await self.mirrorStoredThumbnail(of: record, into: mirror)) }
            }
            for _ in 0..<window { startNext() }
            for await (path, filled) in group {
                if filled { fill.filled += 1 }
                done += 1
                progress(.finished(path: path, done: done, total: toFill.count))
                startNext()
            }
        }
        return fill
    }

    /// Makes the mirror's renditions of a fresh record from its stored thumbnail: the stored
    /// bytes go to a worker in a sealed memory file, as a document would.
    private func mirrorStoredThumbnail(of record: DocumentRecord, into mirror: any ThumbnailMirror) async -> Bool {
        let stored: StoredDocument?
        do {
            stored = try await store.document(at: record.path, includingImageData: true)
        } catch {
            mirror.noteFailure(path: record.path, reason: "cannot read its stored thumbnail: \(error)")
            return false
        }
        guard let stored, stored.record == record,
            let image = stored.thumbnails.first(where: { $0.sizeKey == ThumbnailImage.standardSizeKey }),
            let bytes = image.data
        else {
            mirror.noteFailure(path: record.path, reason: "its stored thumbnail changed or is gone; run again")
            return false
        }
        let descriptor = bytes.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else {
            mirror.noteFailure(
                path: record.path,
                reason: "cannot hand its thumbnail to a renderer: \(String(cString: strerror(errno)))")
            return false
        }
        let id = renderCount.add(1, ordering: .relaxed).newValue
        let job = RenderJob(
            id: id, name: "stored-thumbnail.\(image.format.fileExtension)", maxSide: options.maxSide,
            maxPixels: options.maxPixels, computeDigest: false, format: .jpeg, renditions: mirror.renditionSides)
        let result = await pool.run(job, file: OpenFile(adopting: descriptor), lane: .batch)
        switch result {
        case .finished(let outcome) where outcome.status == .rendered:
            mirror.update(record, renditions: outcome.renditions, sourceSize: nil)
            return true
        case .cancelled:
            break
        default:
            mirror.noteFailure(path: record.path, reason: result.failureReason(naming: options.limitNames) ?? "")
        }
        return false
    }
}
