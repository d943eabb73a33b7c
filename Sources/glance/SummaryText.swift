import Foundation
import GlanceListing
import GlancePipeline

/// The closing summary of `glance generate`, for people.
enum SummaryText {
    static func describe(_ summary: GenerationSummary) -> String {
        var lines = [
            "rendered     \(summary.rendered)",
            "fresh        \(summary.fresh)",
            "unsupported  \(summary.unsupported)",
            "failed       \(summary.failed)",
        ]
        if summary.moved > 0 { lines.append("moved        \(summary.moved) (thumbnails followed renamed documents)") }
        if summary.renderedElsewhere > 0 {
            lines.append(
                "elsewhere    \(summary.renderedElsewhere) (being rendered by another glance on this container)")
        }
        lines.append(
            "time         \(String(format: "%.2f", summary.seconds)) s, \(String(format: "%.1f", summary.documentsPerSecond)) documents/s"
        )
        lines.append("sidecar      \(ListingFormatter.byteCount(summary.sidecarBytes))")
        return lines.joined(separator: "\n")
    }
}
