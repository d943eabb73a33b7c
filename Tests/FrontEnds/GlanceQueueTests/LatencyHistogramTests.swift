import GlanceQueue
import Testing

/// The worker's lease round trips, as its last line reports them.
@Suite("Latency histogram", .timeLimit(.minutes(10)))
struct LatencyHistogramTests {
    @Test("percentiles come within a bucket (9%) above the times added; none before any is added")
    func percentiles() throws {
        var histogram = LatencyHistogram()
        #expect(histogram.percentile(0.5) == nil)
        // 90 round trips of 1 ms, 9 of 10 ms, 1 of 200 ms.
        for _ in 0..<90 { histogram.add(.milliseconds(1)) }
        for _ in 0..<9 { histogram.add(.milliseconds(10)) }
        histogram.add(.milliseconds(200))
        #expect(histogram.count == 100)
        let p50 = try #require(histogram.percentile(0.5))
        let p95 = try #require(histogram.percentile(0.95))
        let p100 = try #require(histogram.percentile(1))
        #expect(p50 >= 1 && p50 < 1.1, "\(p50)")
        #expect(p95 >= 10 && p95 < 11, "\(p95)")
        #expect(p100 >= 200 && p100 < 220, "\(p100)")
    }

    @Test("a worker's tally reads as its last line")
    func tallyLine() {
        var tally = QueueWorker.Tally()
        // A job done twice (leased again after its lease ran out) counts once.
        for job: Int64 in [1, 2, 3, 2] { tally.countDone(job) }
        #expect(tally.description == "3 done, 0 given back; 0 lease round trips")
        tally.leases.add(.microseconds(900))
        #expect(tally.description.hasPrefix("3 done, 0 given back; 1 lease round trip, p50 0."))
    }
}
