import GlanceCore

extension QueueWorker {
    /// What a queue worker tells its operator, as it happens. ``description`` is the line to show,
    /// escaped whole (names and reasons: one line, whatever a file is called); ``isProgress``
    /// tells the per-job lines, shown only when asked for (`-v`), from the ones that always are.
    public enum Event: Sendable, Equatable, CustomStringConvertible {
        /// A job's document was rendered (or found fresh): its state now.
        case finished(root: String, path: String, state: DocumentState)
        /// A job's document is gone: its record was dropped.
        case removed(root: String, path: String)
        /// A job was given back to the queue for another host or a later try, and why.
        case givenBack(root: String, path: String, reason: String)
        /// A job's document was saved, but the job could not be marked done (it will be leased
        /// again when its lease expires, and saving again is harmless).
        case notCompleted(jobID: Int64, reason: String)
        /// The store is unreachable or busy; the worker keeps trying.
        case storeUnavailable(reason: String)
        /// The store answers again.
        case storeBack

        public var isProgress: Bool {
            switch self {
            case .finished, .removed: true
            case .givenBack, .notCompleted, .storeUnavailable, .storeBack: false
            }
        }

        public var description: String {
            switch self {
            case .finished(let root, let path, let state):
                "\(DisplayText.escaped(root))/\(DisplayText.escaped(path)) \(state.rawValue)"
            case .removed(let root, let path):
                "\(DisplayText.escaped(root))/\(DisplayText.escaped(path)) removed"
            case .givenBack(let root, let path, let reason):
                "\(DisplayText.escaped(root))/\(DisplayText.escaped(path)): \(DisplayText.escaped(reason)); given back"
            case .notCompleted(let jobID, let reason):
                "job \(jobID): \(DisplayText.escaped(reason))"
            case .storeUnavailable(let reason):
                "worker: \(DisplayText.escaped(reason)); trying again"
            case .storeBack:
                "worker: the store is back"
            }
        }
    }
}
