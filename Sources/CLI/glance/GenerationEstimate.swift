import Foundation
import GlanceCore
import GlanceListing
import GlancePipeline
import GlanceStore

/// What `generate --dry-run` prints: how many documents would be rendered, and a guess at the
/// time and sidecar space it would take.
///
/// The guess uses this store's own history (mean render time and thumbnail size per content type)
/// where it has some, and typical figures for this kind of machine where it has none.
struct GenerationEstimate: Encodable {
    var documents: Int
    var byType: [String: Int]
    var estimatedSeconds: Double
    var estimatedSidecarBytes: Int64
    var moves: Int
    var fresh: Int

    /// Typical single-core render time (ms) and thumbnail size (bytes) when the store has no history.
    static let typical: [String: (milliseconds: Double, bytes: Double)] = [
        "jpeg": (60, 150_000), "png": (120, 600_000), "pdf": (50, 120_000), "text": (15, 60_000),
        "unknown": (20, 0),
    ]

    /// The estimate of `plan` run by `jobs` workers, each document keeping `sizes` besides the
    /// 1024 (without a history, each size counts its pixels' share of a typical 1024's bytes).
    init(plan: GenerationPlan, jobs: Int, sizes: ThumbnailSizes = .standard) {
        let sizesFactor = 1 + sizes.sides.reduce(0.0) { $0 + Double($1 * $1) / Double(1024 * 1024) }
        var history: [String: (milliseconds: Double, bytes: Double, count: Double)] = [:]
        for stored in plan.records.values where stored.record.state == .fresh {
            let key = stored.record.contentType?.rawValue ?? "unknown"
            var entry = history[key] ?? (0, 0, 0)
            entry.milliseconds += Double(stored.record.renderMilliseconds ?? 0)
            entry.bytes += Double(stored.thumbnails.reduce(0) { $0 + $1.byteCount })
            entry.count += 1
            history[key] = entry
        }
        var byType: [String: Int] = [:]
        var milliseconds = 0.0
        var bytes = 0.0
        for document in plan.toRender {
            let key =
                plan.records[PathKey(document.path)]?.record.contentType?.rawValue
                ?? ContentType(named: document.path)?.rawValue ?? "unknown"
            byType[key, default: 0] += 1
            if let seen = history[key], seen.count >= 3 {
                milliseconds += seen.milliseconds / seen.count
                bytes += seen.bytes / seen.count
            } else {
                let typical = Self.typical[key] ?? Self.typical["unknown"]!
                milliseconds += typical.milliseconds
                bytes += typical.bytes * sizesFactor
            }
        }
        documents = plan.toRender.count
        self.byType = byType
        estimatedSeconds = milliseconds / 1000 / Double(max(1, jobs))
        estimatedSidecarBytes = Int64(bytes)
        moves = plan.moves.count
        fresh = plan.kept[.fresh]?.count ?? 0
    }

    func report(json: Bool) -> String {
        if json { return ListingFormatter.json(self) }
        let types = byType.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        var lines = ["\(documents) documents would be rendered" + (types.isEmpty ? "" : " (\(types))")]
        lines.append("already fresh: \(fresh)" + (moves > 0 ? ", renamed (no render needed): \(moves)" : ""))
        lines.append(
            "estimated time: about \(ProgressBar.duration(estimatedSeconds)); sidecar growth: about \(ListingFormatter.byteCount(estimatedSidecarBytes))"
        )
        return lines.joined(separator: "\n")
    }
}
