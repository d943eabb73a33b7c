import Foundation

/// Round-trip times in a fixed histogram: buckets an eighth of a binary order of magnitude wide
/// (about 9%), from a microsecond to beyond a minute, so that a worker that runs for months keeps
/// 256 counters, not every time. Percentiles are read as their bucket's upper edge.
public struct LatencyHistogram: Sendable, Equatable {
    /// Buckets per doubling.
    static let bucketsPerDoubling = 8.0
    private var counts = [Int](repeating: 0, count: 256)
    /// How many times were added.
    public private(set) var count = 0

    public init() {}

    /// Counts one round trip of `duration`.
    public mutating func add(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let microseconds = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
        let index = microseconds <= 1 ? 0 : Int((Self.bucketsPerDoubling * log2(microseconds)).rounded(.up))
        counts[min(max(index, 0), counts.count - 1)] += 1
        count += 1
    }

    /// The time below which `fraction` (0...1) of the round trips took, in milliseconds (the
    /// upper edge of its bucket); nil before any was added.
    public func percentile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (index, bucket) in counts.enumerated() {
            seen += bucket
            if seen >= rank { return pow(2, Double(index) / Self.bucketsPerDoubling) / 1000 }
        }
        return nil
    }
}
