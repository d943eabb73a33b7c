/// Why the desktop's thumbnail cache could not be used.
public enum DesktopCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Neither `XDG_CACHE_HOME` (absolute) nor `HOME` says where the cache is.
    case noCacheHome
    /// A size name that is not one of the standard's.
    case unknownSize(String)
    /// A folder of the cache could not be made or opened.
    case folder(path: String, reason: String)
    /// An entry could not be written.
    case write(path: String, reason: String)

    public var description: String {
        switch self {
        case .noCacheHome:
            "cannot tell where the desktop's thumbnail cache is: set XDG_CACHE_HOME (an absolute path) or HOME"
        case .unknownSize(let name):
            "unknown thumbnail size '\(name)': use normal, large, x-large or xx-large (128, 256, 512, 1024 px)"
        case .folder(let path, let reason): "cannot use the cache folder \(path): \(reason)"
        case .write(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
