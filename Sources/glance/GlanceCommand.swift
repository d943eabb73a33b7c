import ArgumentParser

/// The `glance` command: thumbnails and previews for folders of documents.
struct GlanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glance",
        abstract: "Thumbnails and previews for folders of documents (PDF, PNG, JPEG, plain text).",
        discussion: """
            Exit status: 0 when everything was done, 1 when some document failed (each is named \
            with its reason on stderr, as 'glance: FILE: reason'), 2 for bad usage or an \
            unusable container or store.
            """,
        version: GlanceVersion.current,
        subcommands: [
            ThumbnailCommand.self, GenerateCommand.self, ListCommand.self, ShowCommand.self, ExportCommand.self,
            GcCommand.self, HookCommand.self, WatchCommand.self, ServeCommand.self, WorkerCommand.self,
            QueueCommand.self,
        ]
    )
}
