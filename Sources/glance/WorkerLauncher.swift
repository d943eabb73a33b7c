import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// How `glance` starts its renderer processes: `glance-worker`, installed beside it.
enum WorkerLauncher {
    /// The worker executable: `glance-worker` in the folder of this executable.
    static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own =
            length > 0
            ? FileName.decode(buffer[0..<length].map { UInt8(bitPattern: $0) }) : CommandLine.arguments[0]
        let folder = own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (folder.isEmpty ? "." : folder) + "/glance-worker"
    }

    /// The arguments that start a worker with these settings.
    static func arguments(memoryLimitMiB: Int, triggers: WorkerDebugTriggers = .init()) -> [String] {
        ["--memory-limit", String(memoryLimitMiB)] + triggers.arguments
    }
}
