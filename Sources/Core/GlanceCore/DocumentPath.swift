/// A path that names a document of a container: relative to the container, `/`-separated, and
/// checked by the one rule every path taken from outside passes (a hook request, a URL, a queue
/// row, a document store's call, a command-line argument) before anything is opened. Where a
/// link leads is judged again when the document is opened.
///
/// The rule: not empty, not absolute, no NUL (it would end the name for every file call:
/// `photo.jpg\0junk` would be taken for `photo.jpg`), no `..`, and no hidden component (a name
/// starting with `.`: hidden files and the store's folder are not documents). `.` components and
/// repeated slashes are dropped (`./a//b` is `a/b`) by ``init(_:)``; ``init(exactly:)`` takes
/// only a path already in that form, for inputs where two spellings of one document must not
/// both pass (a URL: one document, one URL).
public struct DocumentPath: Sendable, Hashable, CustomStringConvertible {
    /// The path, relative to the container, in its one spelling.
    public let relative: String

    /// `spelled` normalised (``DocumentPath``'s rule), or why it cannot name a document.
    public init(_ spelled: String) throws(DocumentPathError) {
        let bytes = spelled.utf8
        guard !bytes.contains(0) else { throw DocumentPathError(path: spelled, reason: .holdsNUL) }
        guard bytes.first != UInt8(ascii: "/") else { throw DocumentPathError(path: spelled, reason: .absolute) }
        let parts = FileName.components(of: spelled).filter { $0 != "." }
        guard !parts.isEmpty else { throw DocumentPathError(path: spelled, reason: .empty) }
        for part in parts {
            if part == ".." { throw DocumentPathError(path: spelled, reason: .leadsOutside) }
            if FileName.isHidden(component: part) { throw DocumentPathError(path: spelled, reason: .hidden) }
        }
        relative = parts.joined(separator: "/")
    }

    /// `spelled` when it passes the rule as it is spelled (no `.` or empty component to drop),
    /// else nil.
    public init?(exactly spelled: String) {
        guard let path = try? DocumentPath(spelled), path.relative == spelled else { return nil }
        self = path
    }

    /// The path as it is (escape it with ``DisplayText`` before showing it on a terminal).
    public var description: String { relative }
}

/// Why a path cannot name a document of a container.
public struct DocumentPathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with a path.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        case empty, absolute, holdsNUL, leadsOutside, hidden

        /// Why, in words (without the path).
        public var description: String {
            switch self {
            case .empty: "empty path"
            case .absolute: "absolute paths are not allowed (name documents relative to the container)"
            case .holdsNUL: "a path cannot hold a NUL byte"
            case .leadsOutside: "leads outside the container"
            case .hidden: "not a document: hidden files and folders (names starting with '.') are passed over"
            }
        }
    }

    /// The path as it was given.
    public let path: String
    public let reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// `PATH: why`, the path as it was given (escape it with ``DisplayText`` before showing it).
    public var description: String { "\(path): \(reason)" }
}
