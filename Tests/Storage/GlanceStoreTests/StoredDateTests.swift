import Foundation
import GRDB
import Testing

@testable import GlanceStore

/// The sidecar writes dates itself (no `DateFormatter`); they must be the very text GRDB writes
/// for a `Date`, so that stores written before and after read back alike.
@Suite("Stored dates", .timeLimit(.minutes(10)))
struct StoredDateTests {
    /// Instants around the edges that formatting gets wrong: before 1970, a millisecond's last
    /// fraction, leap days, the ends of years and centuries.
    static let instants: [Double] = [
        0, 0.0005, 0.9995, 0.999_999, 1, -0.0005, -0.001, -1, -86_400.25, 951_782_400.123,
        951_868_799.9999, 1_795_000_000, 1_795_000_000.5, 4_102_444_799.999, 4_107_542_400.001,
        -2_208_988_800, 253_402_300_799.999,
    ]

    @Test("a date is stored as GRDB stores it, to the millisecond")
    func sameTextAsGRDB() throws {
        // The same 4,000 instants every run (SplitMix64 from a fixed seed).
        var generator = SplitMix64(seed: 0x5EED_DA7E)
        var instants = Self.instants
        for _ in 0..<2_000 {
            instants.append(Double(Int64.random(in: -5_000_000_000_000...9_000_000_000_000, using: &generator)) / 1000)
            instants.append(Double.random(in: 0...4_000_000_000, using: &generator))
        }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            let expected = try #require(String.fromDatabaseValue(date.databaseValue))
            #expect(StoredDate.text(date) == expected, "at \(seconds) s")
        }
    }

    @Test("a stored date reads back within half a millisecond")
    func readsBack() throws {
        for seconds in Self.instants {
            let date = Date(timeIntervalSince1970: seconds)
            let read = try #require(Date.fromDatabaseValue(StoredDate.text(date).databaseValue))
            #expect(abs(date.timeIntervalSince(read)) <= 0.000_500_1, "at \(seconds) s")
        }
    }
}

/// A small seeded generator, so that a failure names instants the next run tries again.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
