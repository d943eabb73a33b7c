import ArgumentParser
import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

/// `glance worker`: the renderer process that the worker pool starts. Not for people: it reads
/// JSON jobs on stdin and answers on stdout until stdin closes.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker", abstract: "Serve render jobs on stdin (started by the worker pool).",
        shouldDisplay: false)

    @Option(help: "Address-space limit in MiB (0: none).")
    var memoryLimit: Int = 1024

    @Option(help: "Crash (SIGSEGV) on documents whose file name matches this glob (for tests).")
    var debugCrashOn: String?

    @Option(help: "Hang on documents whose file name matches this glob (for tests).")
    var debugHangOn: String?

    @Option(help: "Wait a second before reading documents whose file name matches this glob (for tests).")
    var debugSlowOn: String?

    @Option(help: "Send a forged reply for documents whose file name matches this glob (for tests).")
    var debugForgeReplyOn: String?

    func validate() throws {
        if memoryLimit != 0 { try OptionChecks.memoryLimit(memoryLimit) }
    }

    func run() throws {
        WorkerService(
            memoryLimitBytes: memoryLimit << 20,
            triggers: .init(
                crashOn: debugCrashOn, hangOn: debugHangOn, slowOn: debugSlowOn, forgeReplyOn: debugForgeReplyOn)
        ).run()
    }

    /// This executable's path, to start workers from (the same `glance`).
    static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The arguments that start a worker with these settings.
    static func arguments(memoryLimitMiB: Int, triggers: WorkerService.DebugTriggers = .init()) -> [String] {
        var arguments = ["worker", "--memory-limit", String(memoryLimitMiB)]
        if let crashOn = triggers.crashOn { arguments += ["--debug-crash-on", crashOn] }
        if let hangOn = triggers.hangOn { arguments += ["--debug-hang-on", hangOn] }
        if let slowOn = triggers.slowOn { arguments += ["--debug-slow-on", slowOn] }
        if let forge = triggers.forgeReplyOn { arguments += ["--debug-forge-reply-on", forge] }
        return arguments
    }
}
