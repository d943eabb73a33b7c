import GlanceCore
import Synchronization

/// What the renderers noticed during a batch, document by document: warnings (recovered damage,
/// an unusable colour profile) and colour conversions. `generate -v` prints each as it comes;
/// `generate --json` lists them as `notes`.
final class RenderNotes: Sendable {
    /// One thing noticed about one document.
    struct Note: Encodable, Sendable, Equatable {
        /// `warning` or `colour`.
        var kind: String
        /// The document, relative to the container.
        var path: String
        var text: String
    }

    private let notes = Mutex<[Note]>([])
    private let printing: Bool
    private let container: String

    /// Notes of a batch over `container`; with `printing`, each also goes to stderr at once.
    init(container: String, printing: Bool) {
        self.container = container
        self.printing = printing
    }

    /// Takes what the worker said about the document at `path`.
    func record(path: String, outcome: RenderOutcome) {
        var made: [Note] = []
        if let colour = outcome.colour { made.append(Note(kind: "colour", path: path, text: colour.summary)) }
        for warning in outcome.warnings { made.append(Note(kind: "warning", path: path, text: warning)) }
        guard !made.isEmpty else { return }
        notes.withLock { $0.append(contentsOf: made) }
        guard printing else { return }
        let shown = container.hasSuffix("/") ? container + path : container + "/" + path
        for note in made {
            let prefix = note.kind == "warning" ? "warning: " : ""
            StandardError.write("glance: \(DisplayText.escaped(shown)): \(prefix)\(note.text)")
        }
    }

    /// Every note so far, by path (and in the order noticed for one path).
    var all: [Note] {
        notes.withLock { notes in
            notes.enumerated().sorted { ($0.element.path, $0.offset) < ($1.element.path, $1.offset) }.map(\.element)
        }
    }
}
