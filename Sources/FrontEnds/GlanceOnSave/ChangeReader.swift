import Foundation
import GlanceContainer
import GlanceCore
import Synchronization

/// What happened in a container, as the watcher acts on it: inotify's events with renames paired
/// up (by cookie) and new folders already watched.
enum ContainerChange: Sendable {
    /// A document was written (closed after writing, or moved in from outside or from a hidden
    /// temporary file, as editors and rsync save).
    case written(String)
    /// A document was renamed or moved inside the container.
    case moved(from: String, to: String)
    /// A document was deleted, or moved out of the container.
    case deleted(String)
    /// A folder appeared (created, or moved in from outside), holding these files already.
    case folderAppeared(String, files: [String])
    /// A folder was renamed or moved inside the container, holding these files (new paths).
    case folderMoved(from: String, to: String, files: [String])
    /// A folder was deleted or moved out of the container.
    case folderDeleted(String)
    /// Events were lost (the kernel's queue overflowed): only a full pass can tell what changed.
    case overflow
    /// A folder could not be watched; its changes will not be seen.
    case watchFailed(WatchError)
    /// The container folder is gone (deleted or unmounted): the last change the reader sends.
    case containerGone
}

/// The watcher's reading thread: owns the inotify watches, reads events, pairs renames, watches
/// new folders at once (so that files created in them right away are seen), and hands batches of
/// changes to the watcher.
final class ChangeReader: Sendable {
    /// How long a "moved out" waits for its "moved in" before it counts as leaving the container.
    /// The kernel queues both halves of a rename together, so this is generous.
    static let pairingWindow: Duration = .milliseconds(100)

    private let state = ThreadStop()

    /// Starts watching `root` (every folder below it but the `excluded` ones) on a thread of its
    /// own; the initial watches are in place when this returns (or it throws). Batches of changes
    /// arrive on `changes`, one every 50 ms at least (an empty batch is a tick).
    init(root: String, excluding excluded: Set<String>, changes: AsyncStream<[ContainerChange]>.Continuation)
        throws(WatchError)
    {
        let ready = DispatchSemaphore(value: 0)
        let failure = Mutex<WatchError?>(nil)
        let thread = Thread { [state] in
            defer {
                changes.finish()
                state.finished.signal()
            }
            let watch: FolderWatch
            do throws(WatchError) {
                watch = try FolderWatch(root: root, excluding: excluded)
                try watch.watchTree("")
            } catch {
                failure.withLock { $0 = error }
                ready.signal()
                return
            }
            ready.signal()
            Self.run(watch, changes: changes, state: state)
        }
        thread.name = "glance-watch"
        thread.start()
        ready.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Stops the thread and waits for it (at most one poll interval).
    func stop() {
        if state.stopping.exchange(true, ordering: .relaxed) { return }
        state.finished.wait()
    }

    /// The thread's loop.
    private static func run(
        _ watch: FolderWatch, changes: AsyncStream<[ContainerChange]>.Continuation, state: ThreadStop
    ) {
        // Halves of renames waiting for their other half: cookie -> (path, is a folder, when).
        var movedOut: [UInt32: (path: String, isFolder: Bool, at: ContinuousClock.Instant)] = [:]
        var gone = false
        var ticks = 0
        while !state.stopping.load(ordering: .relaxed), !gone {
            var batch: [ContainerChange] = []
            // About once a second: was the container folder itself deleted?
            ticks += 1
            if ticks % 20 == 0, watch.rootIsDeleted { gone = true }
            for event in watch.read(waiting: 50) {
                switch event.kind {
                case .overflow:
                    batch.append(.overflow)
                case .containerGone:
                    gone = true
                case .closedAfterWriting:
                    if !event.isFolder { batch.append(.written(event.path)) }
                case .created:
                    if event.isFolder { batch += appeared(event.path, watch) }
                case .deleted:
                    if event.isFolder {
                        watch.rename(folder: event.path, to: nil)
                        batch.append(.folderDeleted(event.path))
                    } else {
                        batch.append(.deleted(event.path))
                    }
                case .movedOut(let cookie):
                    movedOut[cookie] = (event.path, event.isFolder, .now)
                case .movedIn(let cookie):
                    if ContainerScanner.isHidden(event.path) { continue }
                    guard let from = movedOut.removeValue(forKey: cookie) else {
                        // From outside the container.
                        batch += event.isFolder ? appeared(event.path, watch) : [.written(event.path)]
                        continue
                    }
                    let fromHidden = ContainerScanner.isHidden(from.path)
                    if event.isFolder {
                        if fromHidden {
                            batch += appeared(event.path, watch)
                        } else {
                            watch.rename(folder: from.path, to: event.path)
                            batch.append(
                                .folderMoved(from: from.path, to: event.path, files: watch.files(below: event.path)))
                        }
                    } else {
                        // An editor's save (a hidden temporary renamed over the document) is a write.
                        batch.append(fromHidden ? .written(event.path) : .moved(from: from.path, to: event.path))
                    }
                }
            }
            // Halves whose other half never came: moved out of the container.
            let now = ContinuousClock.now
            for (cookie, from) in movedOut where now - from.at > pairingWindow {
                movedOut[cookie] = nil
                if ContainerScanner.isHidden(from.path) { continue }
                if from.isFolder {
                    watch.rename(folder: from.path, to: nil)
                    batch.append(.folderDeleted(from.path))
                } else {
                    batch.append(.deleted(from.path))
                }
            }
            if gone { batch.append(.containerGone) }
            changes.yield(batch)
        }
    }

    /// A folder that appeared: watched at once, then listed, so that files written into it before
    /// its watch existed are not missed.
    private static func appeared(_ folder: String, _ watch: FolderWatch) -> [ContainerChange] {
        do throws(WatchError) {
            try watch.watchTree(folder)
        } catch {
            return [.watchFailed(error), .folderAppeared(folder, files: watch.files(below: folder))]
        }
        return [.folderAppeared(folder, files: watch.files(below: folder))]
    }
}
