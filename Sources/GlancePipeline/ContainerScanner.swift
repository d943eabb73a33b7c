import GlanceStore

#if canImport(Glibc)
    import Glibc
#endif

/// A document found in a container: its path relative to the container and its identity.
public struct ScannedDocument: Sendable, Equatable {
    /// `/`-separated, relative to the container.
    public var path: String
    public var identity: FileIdentity

    public init(path: String, identity: FileIdentity) {
        self.path = path
        self.identity = identity
    }
}

/// Why a container cannot be used.
public struct ContainerError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// Walks a container: every regular file below it, by one `readdir` and one `stat` each.
///
/// Skipped: names starting with `.` (hidden files and folders, and so the `.thumbnails` sidecar),
/// the store's folder wherever it is, and symbolic links that lead out of the container. Links
/// to files inside are listed under their own name; links to folders are not followed (a loop
/// guard that costs nothing). The content of files is never read.
public struct ContainerScanner: Sendable {
    /// The container's absolute, resolved path.
    public let root: String
    /// Absolute paths never to descend into (the store folder, when it lies inside).
    public let excludedFolders: Set<String>

    /// A scanner for `container`; throws if it is not a readable folder.
    public init(container: String, excluding: [String] = []) throws(ContainerError) {
        guard let resolved = realpath(container, nil) else {
            throw ContainerError(path: container, reason: String(cString: strerror(errno)))
        }
        defer { free(resolved) }
        root = String(cString: resolved)
        var status = stat()
        guard stat(root, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw ContainerError(path: container, reason: "not a folder")
        }
        var excluded = Set<String>()
        for folder in excluding {
            if let real = realpath(folder, nil) {
                excluded.insert(String(cString: real))
                free(real)
            }
        }
        excludedFolders = excluded
    }

    /// Every document, sorted by path.
    public func scan() -> [ScannedDocument] {
        var found: [ScannedDocument] = []
        walk(folder: root, relative: "", into: &found)
        found.sort { $0.path < $1.path }
        return found
    }

    /// The absolute path of a document given relative to the container.
    public func absolutePath(of relative: String) -> String { root + "/" + relative }

    /// The relative path of `path` inside the container, if it is inside.
    public func relativePath(of path: String) -> String? {
        let absolute: String
        if let real = realpath(path, nil) {
            absolute = String(cString: real)
            free(real)
        } else if path.hasPrefix("/") {
            absolute = path
        } else {
            guard let folder = getcwd(nil, 0) else { return nil }
            defer { free(folder) }
            absolute = String(cString: folder) + "/" + path
        }
        guard absolute.hasPrefix(root + "/") else { return nil }
        return String(absolute.dropFirst(root.count + 1))
    }

    private func walk(folder: String, relative: String, into found: inout [ScannedDocument]) {
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            let path = folder + "/" + name
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                if !excludedFolders.contains(path) { walk(folder: path, relative: relativePath, into: &found) }
            case S_IFREG:
                found.append(ScannedDocument(path: relativePath, identity: FileStatus.identity(of: status)))
            case S_IFLNK:
                if let target = linkedFileInside(path) {
                    found.append(ScannedDocument(path: relativePath, identity: target))
                }
            default:
                continue  // sockets, fifos, devices: not documents
            }
        }
    }

    /// The identity of the regular file a symlink leads to, if that file is inside the container.
    private func linkedFileInside(_ link: String) -> FileIdentity? {
        guard let real = realpath(link, nil) else { return nil }
        defer { free(real) }
        let target = String(cString: real)
        guard target.hasPrefix(root + "/") else { return nil }
        return FileStatus.identity(ofFileAt: target)
    }
}
