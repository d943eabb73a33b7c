import Foundation
import GlanceCore

/// The coordinator's reading of one worker's replies: bytes in as they arrive, whole outcomes
/// out. A worker is not trusted: a reply that does not answer the job, or claims sizes the job
/// cannot have, is ``Next/invalid`` (and the worker is then killed), never a trap here.
/// (`package`: the worker-protocol fuzzer drives it directly.)
package struct WorkerReplyReader {
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

    package init() {}

    /// Adds bytes read from the worker.
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The reply to `job`, if the bytes so far hold all of it.
    package mutating func next(for job: RenderJob) -> Next {
        if header == nil, let newline = buffer.firstIndex(of: 0x0A) {
            guard let decoded = try? JSONDecoder().decode(RenderOutcome.self, from: Data(buffer[..<newline])),
                Self.isPlausible(decoded, for: job)
            else {
                return .invalid
            }
            buffer.removeFirst(newline + 1)
            header = decoded
        }
        guard var outcome = header, buffer.count >= outcome.trailingByteCount else { return .needMore }
        outcome.data = Array(buffer[..<outcome.byteCount])
        var offset = outcome.byteCount
        for index in outcome.renditions.indices {
            let count = outcome.renditions[index].byteCount
            outcome.renditions[index].data = Array(buffer[offset..<(offset + count)])
            offset += count
        }
        buffer.removeFirst(offset)
        header = nil
        return .outcome(outcome)
    }

    /// Whether a reply header can be the answer to `job`: its id, byte counts the pipe may
    /// carry, and for a rendered image a format and a size within the job's box, and exactly
    /// the renditions asked for, each within its own box.
    static func isPlausible(_ outcome: RenderOutcome, for job: RenderJob) -> Bool {
        let counts = [outcome.byteCount] + outcome.renditions.map(\.byteCount)
        guard outcome.id == job.id, counts.allSatisfy({ (0...RenderOutcome.maximumByteCount).contains($0) }),
            counts.reduce(0, +) <= RenderOutcome.maximumByteCount
        else {
            return false
        }
        guard outcome.status == .rendered else { return outcome.byteCount == 0 && outcome.renditions.isEmpty }
        let renditionsFit =
            outcome.renditions.map(\.side) == job.renditions
            && outcome.renditions.allSatisfy { rendition in
                let box = 1...min(rendition.side, job.maxSide)
                return box.contains(rendition.width) && box.contains(rendition.height) && rendition.byteCount > 0
            }
        return outcome.format != nil && (1...job.maxSide).contains(outcome.width)
            && (1...job.maxSide).contains(outcome.height) && outcome.byteCount > 0 && renditionsFit
    }
}
