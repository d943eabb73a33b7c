import ArgumentParser
import Glance
import GlanceCore
import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

// Entry point. ArgumentParser's own exit codes are mapped to Glance's: 0 done, 1 some documents
// failed (commands throw ExitCode(1) after naming them), 2 bad usage (ArgumentParser says 64).
// File names are bytes: arguments are decoded so that a name that is not UTF-8 reaches the
// commands exactly (see FileName), instead of with U+FFFD where its bytes were.
// A negative number after a numeric option reaches its range check: those options take the
// next argument whatever it looks like (ArgumentParser's `.unconditional` parsing).
// A bare `--preview` means `--preview=auto` (ArgumentParser's options always take a value).
let arguments = PreviewArgument.normalised(
    (1..<Int(CommandLine.argc)).compactMap { index in
        CommandLine.unsafeArgv[index].map { FileName.decode(cString: $0) }
    })
if arguments.isEmpty {
    // No command is bad usage: say what there is, and exit 2.
    StandardError.writeRaw(GlanceCommand.helpMessage() + "\n")
    exit(2)
}
if let problem = ProcessorFeatures.settingProblem() {
    // A misspelt switch would otherwise measure the machine as it is while claiming otherwise.
    StandardError.write("glance: \(problem)")
    exit(2)
}
if arguments == ["--version"] {
    // Not ArgumentParser's: the version line also says how renderers are confined here.
    print(GlanceVersion.description(rendererExecutable: RendererLauncher.executablePath))
    exit(0)
}
/// Runs the parsed command: asynchronous commands (those that use the store or the indexer)
/// through their `async` entry point.
func execute(_ command: any ParsableCommand) async throws {
    if var asynchronous = command as? any AsyncParsableCommand {
        try await asynchronous.run()
    } else {
        var synchronous = command
        try synchronous.run()
    }
}

do {
    try await execute(try GlanceCommand.parseAsRoot(arguments))
} catch CommandFailure.documentsFailed {
    exit(1)
} catch CommandFailure.unusable(let message) {
    StandardError.write("glance: \(message)")
    exit(2)
} catch let error as OpeningError {
    // A container or store that cannot be opened is bad usage, as the library words it; only
    // the store address is named by its option here.
    if case .storeAddress(let part, let reason) = error {
        StandardError.write("glance: --store \(part): \(reason)")
    } else {
        StandardError.write("glance: \(error.description)")
    }
    exit(2)
} catch {
    let code = GlanceCommand.exitCode(for: error)
    let message = GlanceCommand.fullMessage(for: error)
    if code == .success {
        if !message.isEmpty { print(message) }
        exit(0)
    }
    if error is ExitCode {
        exit(code.rawValue)
    }
    // ArgumentParser's message is several lines (the error, the usage, a pointer to --help): each
    // is written on its own, escaped like every other line glance prints.
    for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
        StandardError.write(String(line))
    }
    exit(code == .validationFailure ? 2 : code.rawValue)
}
