internal import CScaler
import GlanceCore

/// Halves a thumbnail while its rows are made, into images of a half, a quarter, ... of its
/// size, so that a PNG whose thumbnail is encoded as it is made (never whole in memory) still
/// gives the store's smaller sizes: each level keeps one pending row and its own (small) image.
///
/// The levels are what ``PixelBuffer/halved()`` gives applied again and again: each row of a
/// level is the mean of two rows of the level above, an odd last row averaged with itself.
final class HalvingChain {
    /// One level: the image being made and the row waiting for its partner.
    private final class Level {
        let width: Int
        let height: Int
        var bytes: [UInt8]
        /// Two rows of the level above: the pending one first, then its partner.
        var pair: [UInt8]
        var hasPending = false
        var rowsMade = 0

        init(width: Int, height: Int, bytes: [UInt8], pair: [UInt8]) {
            self.width = width
            self.height = height
            self.bytes = bytes
            self.pair = pair
        }
    }

    private let channels: Int
    private let levels: [Level]

    /// A chain for a `width` x `height` image of `channels` (3 or 4; 1 for gray) making `count`
    /// halvings.
    init(width: Int, height: Int, channels: Int, count: Int) {
        self.channels = channels
        var made: [Level] = []
        var (w, h) = (width, height)
        for _ in 0..<count {
            let above = w
            (w, h) = ((w + 1) / 2, (h + 1) / 2)
            made.append(
                Level(
                    width: w, height: h, bytes: [UInt8](repeating: 0, count: w * h * channels),
                    pair: [UInt8](repeating: 0, count: 2 * above * channels)))
        }
        levels = made
    }

    /// Takes the next row of the full-size image (`width * channels` bytes).
    func add(row: UnsafePointer<UInt8>) {
        add(row: row, to: 0)
    }

    /// The halves, largest first, once every row was added.
    func finish() -> [PixelBuffer] {
        for index in levels.indices where levels[index].hasPending {
            emit(level: index, rows: 1)
        }
        return levels.map { PixelBuffer(width: $0.width, height: $0.height, channels: channels, bytes: $0.bytes) }
    }

    private func add(row: UnsafePointer<UInt8>, to index: Int) {
        guard index < levels.count else { return }
        let level = levels[index]
        let rowBytes = level.pair.count / 2
        let pending = level.hasPending
        level.pair.withUnsafeMutableBufferPointer { pair in
            (pending ? pair.baseAddress! + rowBytes : pair.baseAddress!).update(from: row, count: rowBytes)
        }
        if pending {
            emit(level: index, rows: 2)
        } else {
            level.hasPending = true
        }
    }

    /// Halves the pending row (with its partner when `rows` is 2) into the level's next row, and
    /// hands that row down.
    private func emit(level index: Int, rows: Int) {
        let level = levels[index]
        let aboveWidth = level.pair.count / (2 * channels)
        let y = level.rowsMade
        level.hasPending = false
        guard y < level.height else { return }
        let rowBytes = level.width * channels
        let channels = self.channels
        level.pair.withUnsafeBufferPointer { pair in
            level.bytes.withUnsafeMutableBufferPointer { bytes in
                glance_halve(
                    pair.baseAddress!, Int32(aboveWidth), Int32(rows), aboveWidth * channels, Int32(channels),
                    bytes.baseAddress! + y * rowBytes)
            }
        }
        level.rowsMade += 1
        let made = Array(level.bytes[(y * rowBytes)..<((y + 1) * rowBytes)])
        made.withUnsafeBufferPointer { add(row: $0.baseAddress!, to: index + 1) }
    }
}
