import ArgumentParser
import Foundation
import GlanceCore
import GlanceOnSave

/// `glance status CONTAINER`: how the watcher or server running on a container does, asked on
/// its hook socket.
struct StatusCommand: ParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say how the glance watch or glance serve --watch running on a container does.",
        discussion: """
            Asks the watcher on the container's hook socket: whether it is ready (its store and a \
            renderer answer, as /readyz asks), whether every folder is watched, the jobs waiting and \
            the renderers started. Exit status: 0 ready, 1 not ready, 2 when nothing runs on the \
            container.
            """)

    @OptionGroup var containerOptions: ContainerOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    @Option(parsing: .unconditional, help: "Seconds to wait for the answer.")
    var timeout: Double = 10

    func validate() throws { try OptionChecks.timeout(timeout) }

    func run() throws {
        let answered: HookStatus?
        do {
            answered = try HookClient.status(at: location.hookSocket, timeoutSeconds: timeout)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        guard let status = answered else {
            throw CommandFailure.unusable(
                "\(DisplayText.escaped(location.container)): no glance watch or glance serve --watch answers on its "
                    + "hook socket (\(DisplayText.escaped(location.hookSocket)))")
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: (try? encoder.encode(status)) ?? Data("{}".utf8), as: UTF8.self))
        } else {
            print(Self.text(status, container: location.container))
        }
        if !status.ready { throw CommandFailure.documentsFailed }
    }

    /// The status for people, a fact a line.
    static func text(_ status: HookStatus, container: String) -> String {
        let uptime = status.uptimeSeconds
        let since =
            uptime < 120
            ? "\(uptime) s" : uptime < 7200 ? "\(uptime / 60) min" : "\(uptime / 3600) h \(uptime % 3600 / 60) min"
        let ready =
            status.ready
            ? "ready (the store and a renderer answer)"
            : "not ready: " + status.problems.map(DisplayText.escaped).joined(separator: "; ")
        return [
            "\(DisplayText.escaped(status.command)) (pid \(status.pid)) on \(DisplayText.escaped(container)), up \(since)",
            ready,
            status.watching ? "watching every folder; \(status.catchUpPasses) catch-up passes" : "not watching yet",
            "queued: \(status.queuedInteractive) interactive, \(status.queuedPreviews) previews, \(status.queuedBatch) batch",
            "renderers started: \(status.renderersStarted)",
        ].joined(separator: "\n")
    }
}
