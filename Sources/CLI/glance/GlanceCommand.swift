import ArgumentParser
import Glance

/// The `glance` command: thumbnails and previews for folders of documents.
struct GlanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glance",
        abstract: """
            Thumbnails and previews for folders of documents: PDFs, images, text, office files, videos and \
            sound, camera raw photos, e-books and comics.
            """,
        discussion: """
            Exit status: 0 when everything was done, 1 when some document failed (each is named \
            with its reason on stderr, as 'glance: FILE: reason'), 2 for bad usage or an \
            unusable container or store.

            Environment: GLANCE_SIMD_DISABLE=avx2,sha_ni (names from /proc/cpuinfo: ssse3, \
            sse4_1, avx2, sha_ni, or all) makes the renderers take their portable code instead of \
            those processor extensions, to measure a machine without them; 'glance --version' \
            says which are in use.
            """,
        version: GlanceVersion.current,
        subcommands: [
            ThumbnailCommand.self, GenerateCommand.self, ListCommand.self, ShowCommand.self, ExportCommand.self,
            GcCommand.self, HookCommand.self, WatchCommand.self, ServeCommand.self, WorkerCommand.self,
            QueueCommand.self, UserCommand.self, ShareCommand.self, StatusCommand.self,
        ]
    )
}
