import Foundation
import GlanceCore

/// The coordinator's reading of one worker's replies: bytes in as they arrive, whole outcomes
/// out. A worker is not trusted: a reply that does not answer the job, or claims sizes the job
/// cannot have, is ``Next/invalid`` (and the worker is then killed), never a trap here.
/// (`package`: the worker-protocol fuzzer drives it directly.)
package struct RendererReplyReader {
    /// What the bytes so far hold.
    package enum Next: Equatable {
        /// Not a whole reply yet.
        case needMore
        /// A reply, with its image and renditions' bytes.
        case outcome(RenderOutcome)
        /// A reply that cannot be believed.
        case invalid
    }

    private var buffer: [UInt8] = []
    private var header: RenderOutcome?
    /// The pieces of the coming reply's image received so far (see ``RendererReplyPiece``).
    private var leading: [UInt8] = []

    package init() {}

    /// Adds bytes read from the worker.
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The reply to `job`, if the bytes so far hold all of it.
    package mutating func next(for job: RenderJob) -> Next {
        while header == nil, buffer.first == RendererReplyPiece.marker {
            switch takePiece() {
            case .invalid: return .invalid
            case .needMore: return .needMore
            case .taken: continue
            }
        }
        if header == nil, let newline = buffer.firstIndex(of: 0x0A) {
            guard let decoded = try? JSONDecoder().decode(RenderOutcome.self, from: Data(buffer[..<newline])),
                Self.isPlausible(decoded, for: job)
            else {
                return .invalid
            }
            buffer.removeFirst(newline + 1)
            if decoded.status != .rendered {
                leading = []  // a render that failed after sending part of its image
            } else if leading.count > decoded.byteCount {
                return .invalid
            }
            header = decoded
        }
        guard var outcome = header, buffer.count >= outcome.trailingByteCount - leading.count else {
            return .needMore
        }
        let rest = outcome.byteCount - leading.count
        outcome.data = leading
        outcome.data.append(contentsOf: buffer[..<rest])
        leading = []
        var offset = rest
        for index in outcome.renditions.indices {
            let count = outcome.renditions[index].byteCount
            outcome.renditions[index].data = Array(buffer[offset..<(offset + count)])
            offset += count
        }
        for index in outcome.sizes.indices {
            let count = outcome.sizes[index].byteCount
            outcome.sizes[index].data = Array(buffer[offset..<(offset + count)])
            offset += count
        }
        buffer.removeFirst(offset)
        header = nil
        return .outcome(outcome)
    }

    /// What became of the piece at the start of the buffer.
    private enum Piece {
        /// Whole, and added to ``leading``.
        case taken
        /// Not all here yet.
        case needMore
        /// A line that is not a piece's, or pieces beyond the largest image.
        case invalid
    }

    /// Takes the piece at the start of the buffer into ``leading``.
    private mutating func takePiece() -> Piece {
        guard let newline = buffer.prefix(RendererReplyPiece.longestLine).firstIndex(of: 0x0A) else {
            return buffer.count < RendererReplyPiece.longestLine ? .needMore : .invalid
        }
        guard let count = RendererReplyPiece.count(digits: buffer[1..<newline]),
            leading.count + count <= RenderOutcome.maximumByteCount
        else { return .invalid }
        guard buffer.count > newline + count else { return .needMore }
        leading.append(contentsOf: buffer[(newline + 1)...(newline + count)])
        buffer.removeFirst(newline + 1 + count)
        return .taken
    }

    /// Whether a reply header can be the answer to `job`: its id, byte counts the pipe may
    /// carry, and for a rendered image a format and a size within the job's box, and exactly
    /// the renditions and sizes asked for (but the sizes the image fits as it is), each within
    /// its own box.
    static func isPlausible(_ outcome: RenderOutcome, for job: RenderJob) -> Bool {
        let counts = [outcome.byteCount] + (outcome.renditions + outcome.sizes).map(\.byteCount)
        guard outcome.id == job.id, counts.allSatisfy({ (0...RenderOutcome.maximumByteCount).contains($0) }),
            counts.reduce(0, +) <= RenderOutcome.maximumByteCount
        else {
            return false
        }
        guard outcome.status == .rendered else {
            return outcome.byteCount == 0 && outcome.renditions.isEmpty && outcome.sizes.isEmpty
        }
        if job.textContent {
            // UTF-8 from at most TextContent's 1 MiB: three bytes for each source byte at most.
            return outcome.format == nil && outcome.renditions.isEmpty && outcome.sizes.isEmpty
                && outcome.byteCount <= 3 << 20 && outcome.text != nil
        }
        if job.pixelsOnly {
            // RGBA pixels within the job's box: exactly four bytes each.
            return outcome.format == nil && outcome.renditions.isEmpty && outcome.sizes.isEmpty
                && (1...job.maxSide).contains(outcome.width) && (1...job.maxSide).contains(outcome.height)
                && outcome.byteCount == outcome.width * outcome.height * 4
        }
        // The sizes asked for, but those the thumbnail itself fits (not made: it serves them).
        let sizesMade = job.sizes.filter {
            !ThumbnailSizes.standardServes(side: $0, width: outcome.width, height: outcome.height)
        }
        let renditionsFit =
            outcome.renditions.map(\.side) == job.renditions && outcome.sizes.map(\.side) == sizesMade
            && (outcome.renditions + outcome.sizes).allSatisfy { rendition in
                let box = 1...min(rendition.side, job.maxSide)
                return box.contains(rendition.width) && box.contains(rendition.height) && rendition.byteCount > 0
            }
        return outcome.format != nil && (1...job.maxSide).contains(outcome.width)
            && (1...job.maxSide).contains(outcome.height) && outcome.byteCount > 0 && renditionsFit
    }
}
