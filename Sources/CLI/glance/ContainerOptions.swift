import ArgumentParser
import Glance

/// The options every container command shares.
struct ContainerOptions: ParsableArguments {
    @Argument(help: "The container: a folder of documents.")
    var container: String

    @Option(
        help: ArgumentHelp(
            "Where the thumbnail store lives: a folder for the SQLite sidecar (default: CONTAINER/.thumbnails), "
                + "or a PostgreSQL database shared by many hosts, "
                + "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?container=NAME] (the password may come from "
                + "PGPASSWORD; NAME defaults to the container's absolute path; a server on this machine may be "
                + "reached through its socket folder: postgres://USER@/DATABASE?host=/run/postgresql; "
                + "&thumbnails=DIR keeps the thumbnails' bytes as files in DIR, the same on every host).",
            valueName: "DIR|URL"))
    var store: String?

    /// The container and its store as the library opens them: every rule of opening lives
    /// there (``ContainerLocation``); its errors end the command with exit 2 (see main.swift).
    var location: ContainerLocation { ContainerLocation(container: container, store: store) }
}

/// How a command ends badly: the CLI's only mapping from errors to exit codes.
enum CommandFailure: Error {
    /// Bad usage or an unusable container or store: exit 2 after `glance: message`.
    case unusable(String)
    /// Some documents failed, each already named with its reason: exit 1.
    case documentsFailed
}

/// A command that takes a container (and `--store`): ``location`` is where its container and
/// store are, as the library opens them.
protocol ContainerCommand {
    var containerOptions: ContainerOptions { get }
}

extension ContainerCommand {
    var location: ContainerLocation { containerOptions.location }
}
