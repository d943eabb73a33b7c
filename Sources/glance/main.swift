import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

// Entry point. ArgumentParser's own exit codes are mapped to Glance's: 0 done, 1 some documents
// failed (commands throw ExitCode(1) after naming them), 2 bad usage (ArgumentParser says 64).
do {
    var command = try GlanceCommand.parseAsRoot()
    try command.run()
} catch CommandFailure.documentsFailed {
    exit(1)
} catch CommandFailure.unusable(let message) {
    StandardError.write("glance: \(message)")
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
    if !message.isEmpty { StandardError.write(message) }
    exit(code == .validationFailure ? 2 : code.rawValue)
}
