import Foundation
import GlanceCore
import GlanceDesktopCache
import GlanceListing
import GlancePipeline

/// The closing summary of `glance generate`, for people.
enum SummaryText {
    /// `generate -v`'s last line when the pool started more renderers than it runs at once, or
    /// nil: each replacement (after a crash, a time-out, a used-up CPU share, or a renderer gone
    /// between documents) cost a renderer's start, and many of them slow a batch down for no
    /// other visible reason. Renderers start on their first job, so with fewer documents than
    /// renderers the count of replacements is a lower bound.
    static func replacedRenderers(started: Int, renderers: Int) -> String? {
        guard started > renderers else { return nil }
        let replaced = started - renderers
        return "\(started) renderers started for \(renderers) at once (--jobs): \(replaced) "
            + "replaced after a crash, a time-out, a used-up CPU share (--cpu-limit) or dying between documents"
    }

    static func describe(_ summary: GenerationSummary, desktopCache: DesktopCacheMirror.Report? = nil) -> String {
        var lines = [
            "rendered     \(summary.rendered)",
            "fresh        \(summary.fresh)",
            "unsupported  \(summary.unsupported)",
            "failed       \(summary.failed)",
        ]
        if summary.moved > 0 { lines.append("moved        \(summary.moved) (thumbnails followed renamed documents)") }
        if summary.renderedElsewhere > 0 {
            lines.append(
                "elsewhere    \(summary.renderedElsewhere) (rendered meanwhile by another glance on this container)")
        }
        let skipped = summary.skipped
        if skipped.total > 0 {
            var reasons: [String] = []
            if skipped.hidden > 0 { reasons.append("\(skipped.hidden) hidden") }
            if skipped.notRegularFiles > 0 { reasons.append("\(skipped.notRegularFiles) not regular files") }
            if skipped.linksNotFollowed > 0 { reasons.append("\(skipped.linksNotFollowed) links leading out") }
            if skipped.pathsTooLong > 0 { reasons.append("\(skipped.pathsTooLong) paths too long") }
            if skipped.stores > 0 { reasons.append("\(skipped.stores) thumbnail stores") }
            lines.append("skipped      \(skipped.total) (\(reasons.joined(separator: ", ")))")
        }
        lines.append(
            "time         \(String(format: "%.2f", summary.seconds)) s, \(String(format: "%.1f", summary.documentsPerSecond)) documents/s"
        )
        if !summary.thumbnailBytesBySize.isEmpty {
            let sizes = summary.thumbnailBytesBySize.sorted {
                (ThumbnailSizes.side(ofSizeKey: $0.key) ?? 0) > (ThumbnailSizes.side(ofSizeKey: $1.key) ?? 0)
            }
            lines.append(
                "made         "
                    + sizes.map { "\($0.key) \(ListingFormatter.byteCount($0.value))" }.joined(separator: " · "))
        }
        // Only the SQLite sidecar has a size on disk of its own (a PostgreSQL store reports none).
        if summary.sidecarBytes > 0 { lines.append("sidecar      \(ListingFormatter.byteCount(summary.sidecarBytes))") }
        if let desktop = desktopCache {
            var parts = ["\(desktop.written) written", "\(desktop.unchanged) already valid"]
            if desktop.failureEntries > 0 { parts.append("\(desktop.failureEntries) failure entries") }
            if !desktop.errors.isEmpty { parts.append("\(desktop.errors.count) not written") }
            lines.append("desktop      \(parts.joined(separator: ", ")) in \(DisplayText.escaped(desktop.folder))")
        }
        return lines.joined(separator: "\n")
    }
}
