import ArgumentParser

/// Range checks for the numeric options several commands share: each bad value is a usage error
/// (exit 2) that names the option and its range, never a trap further down (an infinite
/// `--timeout` once crashed the worker code when converted to nanoseconds).
enum OptionChecks {
    /// The longest `--timeout`: a day.
    static let maximumTimeout = 86_400.0
    /// The largest `--size`: a 4096x4096 page is 64 MiB of pixels already.
    static let maximumSize = 4096
    /// The largest `--memory-limit`, in MiB: 1 TiB.
    static let maximumMemoryLimit = 1 << 20
    /// The largest `--max-pixels`: a trillion.
    static let maximumPixels = 1_000_000_000_000

    static func timeout(_ value: Double, option: String = "--timeout") throws {
        guard value.isFinite, value > 0, value <= maximumTimeout else {
            throw ValidationError("\(option) must be a number of seconds above 0 and at most 86400.")
        }
    }

    /// The smallest `--memory-limit`, in MiB: a worker maps about 100 MiB of libraries before it
    /// reads a document, so a lower limit would fail every document with a crash.
    static let minimumMemoryLimit = 128

    static func memoryLimit(_ value: Int) throws {
        guard (minimumMemoryLimit...maximumMemoryLimit).contains(value) else {
            throw ValidationError(
                "--memory-limit must be between \(minimumMemoryLimit) and \(maximumMemoryLimit) (MiB): a renderer "
                    + "needs about 100 MiB of address space before it reads anything.")
        }
    }

    static func maxPixels(_ value: Int) throws {
        guard (1...maximumPixels).contains(value) else {
            throw ValidationError("--max-pixels must be between 1 and \(maximumPixels).")
        }
    }

    static func maxFileSize(_ value: Int) throws {
        guard (1...maximumMemoryLimit).contains(value) else {
            throw ValidationError("--max-file-size must be between 1 and \(maximumMemoryLimit) (MiB).")
        }
    }

    static func size(_ value: Int) throws {
        guard (1...maximumSize).contains(value) else {
            throw ValidationError("--size must be between 1 and \(maximumSize).")
        }
    }

    static func jobs(_ value: Int) throws {
        guard (1...256).contains(value) else { throw ValidationError("--jobs must be between 1 and 256.") }
    }
}
