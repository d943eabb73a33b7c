import ArgumentParser
import Foundation
import Glance
import GlanceCore
import GlanceDesktopCache

#if canImport(Glibc)
    import Glibc
#endif

/// `--xdg` and `--xdg-sizes`: the desktop's thumbnail cache as a second home for thumbnails.
struct DesktopCacheOptions: ParsableArguments {
    @Flag(
        help: """
            Also write each thumbnail into the desktop's thumbnail cache ($XDG_CACHE_HOME/thumbnails, \
            default ~/.cache/thumbnails; the freedesktop.org standard), where file managers look \
            before making their own. Failed documents get failure entries.
            """)
    var xdg = false

    @Option(
        name: .customLong("xdg-sizes"),
        help: ArgumentHelp(
            "With --xdg: which of the cache's sizes to write, comma-separated: xx-large (1024 px), x-large (512), large (256), normal (128). All come from one decode.",
            valueName: "SIZES"))
    var xdgSizes = "xx-large,x-large,large,normal"

    /// The sizes asked for, largest first.
    func sizes() throws -> [CacheSize] {
        do {
            return try CacheSize.list(xdgSizes)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The cache for writing, with `--xdg`; nil without it.
    func openCache() throws -> FreedesktopCache? {
        guard xdg else { return nil }
        do {
            let root = try FreedesktopCache.defaultRoot(environment: ProcessInfo.processInfo.environment)
            return try FreedesktopCache(root: root, sizes: try sizes(), version: GlanceVersion.current)
        } catch let error as DesktopCacheError {
            throw CommandFailure.unusable(error.description)
        }
    }

    /// The cache as it is, for reading (`list --xdg`).
    static func readCache() throws -> FreedesktopCache {
        do {
            let root = try FreedesktopCache.defaultRoot(environment: ProcessInfo.processInfo.environment)
            return FreedesktopCache(reading: root, version: GlanceVersion.current)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
    }

    /// `path` made absolute against the current folder and cleaned as GLib cleans it, so that a
    /// document's URI is the one a file manager computes for it.
    static func absolutePath(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4097)
        let folder = getcwd(&buffer, buffer.count) != nil ? FileName.decode(cString: buffer) : "/"
        return FileURI.canonicalPath(path, relativeTo: folder)
    }
}
