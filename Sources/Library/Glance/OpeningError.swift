/// Why a container or its store cannot be opened. Each case's ``description`` is one line a user
/// can act on, with names as they are (escape it with `DisplayText` before showing it on a
/// terminal); the command line prints it after `glance:` and exits 2.
public enum OpeningError: Error, Sendable, CustomStringConvertible {
    /// The container folder cannot be opened (missing, not a folder, not readable).
    case container(path: String, reason: String)
    /// The store address (`postgres://…`) does not parse; `part` is the piece at fault.
    case storeAddress(part: String, reason: String)
    /// The SQLite sidecar's folder or database cannot be made or opened.
    case sidecar(directory: String, reason: String)
    /// The default sidecar (`CONTAINER/.thumbnails`) is a symbolic link.
    case sidecarIsLink(directory: String)
    /// The store folder is the container or a folder that holds it.
    case storeHoldsContainer(directory: String)
    /// The PostgreSQL store cannot be reached or prepared.
    case postgres(String)
    /// No sandbox works on this machine and renderers were not allowed to run without one.
    case noSandbox
    /// The store opened, but what it holds cannot be used (a setting another program wrote).
    case storeContents(String)

    public var description: String {
        switch self {
        case .container(let path, let reason): "\(path): \(reason)"
        case .storeAddress(let part, let reason): "store address \(part): \(reason)"
        case .sidecar(let directory, let reason): "\(directory): \(reason)"
        case .sidecarIsLink(let directory):
            "\(directory) is a symbolic link: the sidecar must be the container's own folder "
                + "(a link to another container's would mix their records); remove the link, or name the store's "
                + "folder with --store"
        case .storeHoldsContainer(let directory):
            "\(directory): the store cannot be the container or a folder that holds it; "
                + "choose a folder outside the container (or leave out --store for CONTAINER/.thumbnails)"
        case .postgres(let message): message
        case .storeContents(let message): message
        case .noSandbox:
            "renderers cannot be sandboxed here (seccomp is unavailable); --no-sandbox runs them without one"
        }
    }
}
