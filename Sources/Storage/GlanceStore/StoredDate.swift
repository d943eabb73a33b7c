import Foundation

/// The text a date is stored as: `yyyy-MM-dd HH:mm:ss.SSS` in UTC, the form GRDB writes for a
/// `Date` and reads back (and SQLite's date functions understand), made here without a
/// `DateFormatter`: the first one a process makes loads ICU's calendar data, about a millisecond
/// of a small batch's coordinator, and each use costs more than this arithmetic.
enum StoredDate {
    /// `date` as stored, to the nearest millisecond, a half rounded up (as `DateFormatter` does).
    static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down))
        let (seconds, millisecond) = floorDivision(milliseconds, 1000)
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "1970-01-01 00:00:00.000" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(23)
        func append(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = max(0, value)
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        append(Int(parts.tm_year) + 1900, digits: 4)
        bytes.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mon) + 1, digits: 2)
        bytes.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mday), digits: 2)
        bytes.append(UInt8(ascii: " "))
        append(Int(parts.tm_hour), digits: 2)
        bytes.append(UInt8(ascii: ":"))
        append(Int(parts.tm_min), digits: 2)
        bytes.append(UInt8(ascii: ":"))
        append(Int(parts.tm_sec), digits: 2)
        bytes.append(UInt8(ascii: "."))
        append(Int(millisecond), digits: 3)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Division rounding toward minus infinity, with the remainder it leaves (never negative).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
