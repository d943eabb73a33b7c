import ArgumentParser
import Foundation
import GlanceCore

/// `--jobs`: how many renderer processes run at once, for every command that renders.
struct JobsOption: ParsableArguments {
    @Option(
        name: [.customShort("j"), .customLong("jobs")], parsing: .unconditional,
        help: "Renderer processes to run at once (default: the number of cores).")
    var jobsOption: Int?

    /// --jobs, or the number of cores (not a default value: help would print this machine's).
    var jobs: Int { jobsOption ?? ProcessInfo.processInfo.activeProcessorCount }

    func validate() throws { try OptionChecks.jobs(jobs) }
}

/// `--timeout` and `--memory-limit`: what one renderer may take for one document, for every
/// command that renders (their defaults are ``RendererLimits``').
struct RendererLimitOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Seconds one document may take before its renderer is killed and the document failed.")
    var timeout: Double = RendererLimits.defaultTimeoutSeconds

    @Option(parsing: .unconditional, help: "Memory limit of each renderer process, in MiB (address space).")
    var memoryLimit: Int = RendererLimits.defaultMemoryMiB

    func validate() throws {
        try OptionChecks.timeout(timeout)
        try OptionChecks.memoryLimit(memoryLimit)
    }
}

extension LimitNames {
    /// The options that raise each limit: a refusal's reason ends with the one to use
    /// (`timed out after 30 s (--timeout)`).
    static let commandLine = LimitNames([
        .maxPixels: "--max-pixels", .maxFileSize: "--max-file-size", .memory: "--memory-limit", .time: "--timeout",
        .cpuTime: "--cpu-limit", .officeTime: "--office-timeout", .officeMemory: "--office-memory-limit",
        .sandbox: "--no-sandbox runs without one",
    ])
}

/// The renderers' test hooks, `--debug-crash-on GLOB` and the like: a renderer acts broken or
/// compromised on documents whose name matches (see `RendererDebugTriggers`). Hidden, and in debug
/// builds only: a release build has no such options, and its renderer refuses them.
struct DebugTriggerOptions: ParsableArguments {
    #if DEBUG
        @Option(help: .hidden) var debugCrashOn: String?
        @Option(help: .hidden) var debugHangOn: String?
        @Option(help: .hidden) var debugSlowOn: String?
        @Option(help: .hidden) var debugForgeReplyOn: String?
        @Option(help: .hidden) var debugSpinOn: String?
        @Option(help: .hidden) var debugSocketOn: String?
        @Option(help: .hidden) var debugWriteOn: String?
        @Option(help: .hidden) var debugExecOn: String?
    #endif

    /// The triggers to pass to the renderers; none in a release build.
    var triggers: RendererDebugTriggers {
        #if DEBUG
            RendererDebugTriggers(
                crashOn: debugCrashOn, hangOn: debugHangOn, slowOn: debugSlowOn, forgeReplyOn: debugForgeReplyOn,
                spinOn: debugSpinOn, socketOn: debugSocketOn, writeOn: debugWriteOn, execOn: debugExecOn)
        #else
            RendererDebugTriggers()
        #endif
    }
}
