import ArgumentParser
import GlanceCore
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

    @Option(help: "CPU seconds one document may use (0: none); the process's own limit is twice this.")
    var cpuLimit: Int = 60

    @Option(help: "seccomp (confine this process before reading any job) or none.")
    var sandbox: String = "seccomp"

    @Option(help: "Crash (SIGSEGV) on documents whose name matches this glob (for tests).")
    var debugCrashOn: String?

    @Option(help: "Hang on documents whose name matches this glob (for tests).")
    var debugHangOn: String?

    @Option(help: "Wait a second before reading documents whose name matches this glob (for tests).")
    var debugSlowOn: String?

    @Option(help: "Send a forged reply for documents whose name matches this glob (for tests).")
    var debugForgeReplyOn: String?

    @Option(help: "Burn CPU without end on documents whose name matches this glob (for tests).")
    var debugSpinOn: String?

    @Option(help: "Open a network socket on documents whose name matches this glob (for tests).")
    var debugSocketOn: String?

    @Option(help: "Create a file on documents whose name matches this glob (for tests).")
    var debugWriteOn: String?

    @Option(help: "Run a program on documents whose name matches this glob (for tests).")
    var debugExecOn: String?

    func validate() throws {
        if memoryLimit != 0 && !(64...(1 << 20)).contains(memoryLimit) {
            throw ValidationError("--memory-limit must be 0 or between 64 and \(1 << 20) (MiB).")
        }
        guard (0...86_400).contains(cpuLimit) else { throw ValidationError("--cpu-limit must be 0 to 86400 seconds.") }
        guard ["seccomp", "none"].contains(sandbox) else { throw ValidationError("--sandbox is seccomp or none.") }
    }

    func run() throws {
        let confinement = WorkerConfinement(
            sandboxed: sandbox == "seccomp", memoryLimitBytes: memoryLimit << 20, cpuSeconds: cpuLimit)
        let service = WorkerService(
            confinement: confinement,
            triggers: .init(
                crashOn: debugCrashOn, hangOn: debugHangOn, slowOn: debugSlowOn, forgeReplyOn: debugForgeReplyOn,
                spinOn: debugSpinOn, socketOn: debugSocketOn, writeOn: debugWriteOn, execOn: debugExecOn))
        // run() returns false only when the sandbox could not be entered (nothing was read).
        if !service.run() { throw ExitCode(WorkerSandbox.unavailableExitStatus) }
    }
}
