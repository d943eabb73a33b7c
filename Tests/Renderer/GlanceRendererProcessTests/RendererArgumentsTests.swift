import GlanceCore
import Testing

@testable import GlanceRendererProcess

@Suite("Worker arguments", .timeLimit(.minutes(10)))
struct RendererArgumentsTests {
    @Test("the pool's command line sets the limits, the sandbox and the triggers")
    func poolCommandLine() throws {
        let triggers = RendererDebugTriggers(
            crashOn: "crash-*", hangOn: "hang-*", slowOn: "slow-*", forgeReplyOn: "forge-*", spinOn: "spin-*",
            socketOn: "socket-*", writeOn: "write-*", execOn: "exec-*")
        let line = ["--memory-limit", "512", "--cpu-limit", "30"] + triggers.arguments + ["--sandbox", "none"]
        let parsed = try #require(try RendererArguments.parse(line))
        #expect(parsed.memoryLimitMiB == 512)
        #expect(parsed.cpuSeconds == 30)
        #expect(!parsed.sandboxed)
        #expect(parsed.triggers == triggers, "what RendererDebugTriggers.arguments writes reads back the same")
    }

    @Test("no arguments give the defaults; a repeated option keeps its last value; --name=value works")
    func defaultsAndOverrides() throws {
        let defaults = try #require(try RendererArguments.parse([]))
        #expect(defaults == RendererArguments())
        #expect(defaults.memoryLimitMiB == 1024 && defaults.cpuSeconds == 60 && defaults.sandboxed)
        let overridden = try #require(
            try RendererArguments.parse(["--memory-limit", "1024", "--memory-limit=0", "--sandbox=none"]))
        #expect(overridden.memoryLimitMiB == 0)
        #expect(!overridden.sandboxed)
    }

    @Test("--help asks for the usage")
    func help() throws {
        #expect(try RendererArguments.parse(["--memory-limit", "100", "--help"]) == nil)
        #expect(RendererArguments.usage.contains("--memory-limit MIB"))
    }

    @Test(
        "a command line that cannot be run is refused with a reason",
        arguments: [
            (["--colour", "red"], RendererArgumentError.unknownOption("--colour")),
            (["file.pdf"], .unexpected("file.pdf")),
            (["--cpu-limit"], .missingValue(option: "--cpu-limit")),
            (
                ["--memory-limit", "10"],
                .invalidValue(option: "--memory-limit", value: "10", expected: "0 or 64 to 1048576 (MiB)")
            ),
            (
                ["--memory-limit", "lots"],
                .invalidValue(option: "--memory-limit", value: "lots", expected: "0 or 64 to 1048576 (MiB)")
            ),
            (["--cpu-limit=-1"], .invalidValue(option: "--cpu-limit", value: "-1", expected: "0 to 86400 seconds")),
            (["--sandbox", "bwrap"], .invalidValue(option: "--sandbox", value: "bwrap", expected: "seccomp or none")),
        ])
    func refused(line: [String], expected: RendererArgumentError) {
        #expect(throws: expected) { try RendererArguments.parse(line) }
    }

    @Test("a refusal names what was given, with control characters escaped")
    func refusalText() {
        let error = RendererArgumentError.unknownOption("--a\u{1B}[2Jb")
        #expect(!error.description.contains("\u{1B}"))
        #expect(error.description.hasPrefix("unknown option --a"))
    }
}
