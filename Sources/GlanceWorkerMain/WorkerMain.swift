import ArgumentParser
import GlanceWorker

/// `glance-worker`: the renderer process that `glance`'s worker pool starts. Not for people: it
/// reads jobs (a JSON line with the document's open descriptor attached) on its standard input,
/// a Unix socket, and answers on the same socket until it closes.
@main
struct WorkerMain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glance-worker", abstract: "Serve render jobs on stdin (started by glance's worker pool).")

    @Option(help: "Address-space limit in MiB (0: none).")
    var memoryLimit: Int = 1024

    @Option(help: "Crash (SIGSEGV) on documents whose name matches this glob (for tests).")
    var debugCrashOn: String?

    @Option(help: "Hang on documents whose name matches this glob (for tests).")
    var debugHangOn: String?

    @Option(help: "Wait a second before reading documents whose name matches this glob (for tests).")
    var debugSlowOn: String?

    @Option(help: "Send a forged reply for documents whose name matches this glob (for tests).")
    var debugForgeReplyOn: String?

    func validate() throws {
        if memoryLimit != 0 && !(64...(1 << 20)).contains(memoryLimit) {
            throw ValidationError("--memory-limit must be 0 or between 64 and \(1 << 20) (MiB).")
        }
    }

    func run() throws {
        WorkerService(
            memoryLimitBytes: memoryLimit << 20,
            triggers: .init(
                crashOn: debugCrashOn, hangOn: debugHangOn, slowOn: debugSlowOn, forgeReplyOn: debugForgeReplyOn)
        ).run()
    }
}
