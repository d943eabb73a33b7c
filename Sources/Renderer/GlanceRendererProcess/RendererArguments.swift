import GlanceCore

/// `glance-renderer`'s command line, which the pool writes (see `RendererLaunch`) and people do not.
///
/// Parsed here by hand rather than with ArgumentParser: a dozen `--option value` pairs do not need
/// it, and every worker start paid about 1 ms of CPU for it (its generic types' metadata and
/// conformance lookups), twice for a two-worker batch. An option given twice takes its last value,
/// so that the pool's own arguments may override the limits it writes first.
public struct RendererArguments: Sendable, Equatable {
    /// Address-space limit in MiB; 0 for none.
    public var memoryLimitMiB = 1024
    /// CPU seconds one document may use; 0 for none.
    public var cpuSeconds = 60
    /// Whether the worker confines itself with seccomp before reading any job.
    public var sandboxed = true
    /// An office renderer's LibreOffice program folder (`--office FOLDER`); nil for a renderer
    /// of everything else.
    public var officeProgramFolder: String?
    /// The folder an office renderer writes in (`--workspace FOLDER`): LibreOffice's profile and
    /// each document's private copy. Made by whoever starts the renderer, private to it.
    public var workspace = "/tmp"
    /// Whether an office renderer must have Landlock confine LibreOffice's file access
    /// (`--confine-files required`: outside bubblewrap, where nothing else hides people's files)
    /// or uses it where the kernel has it (`best-effort`, the default).
    public var filesConfinementRequired = false
    /// The test hooks (`--debug-*-on GLOB`).
    public var triggers = RendererDebugTriggers()

    public init() {}

    /// What `--help` prints.
    public static let usage = """
        usage: glance-renderer [--memory-limit MIB] [--cpu-limit SECONDS] [--sandbox seccomp|none]

        Serves render jobs on standard input, a Unix socket: a line of JSON with the document's
        open descriptor attached, answered on the same socket. Started by glance's worker pool,
        not by people.

          --memory-limit MIB      address-space limit, 0 for none, else 64 to 1048576 (default 1024)
          --cpu-limit SECONDS     CPU seconds one document may use, 0 for none, at most 86400
                                  (default 60); the process's own limit is twice this
          --sandbox MODE          seccomp (confine this process before reading any job) or none
          --office FOLDER         an office renderer: start LibreOffice from FOLDER (its program
                                  folder) before confining this process, and draw office documents
          --workspace FOLDER      where an office renderer writes: LibreOffice's profile and each
                                  document's private copy (default /tmp, a private one under
                                  bubblewrap)
          --confine-files MODE    required or best-effort (default): whether an office renderer
                                  refuses to start LibreOffice where Landlock cannot confine what
                                  it reads to the system's folders and the workspace
          --debug-crash-on GLOB, --debug-hang-on GLOB, --debug-slow-on GLOB,
          --debug-forge-reply-on GLOB, --debug-spin-on GLOB, --debug-socket-on GLOB,
          --debug-write-on GLOB, --debug-exec-on GLOB, --debug-worn-out-on GLOB
                                  act as a broken or compromised renderer on documents whose
                                  name matches GLOB (for tests; debug builds only)
        """

    /// The arguments after the program's name; nil when they ask for `--help`.
    public static func parse(_ arguments: [String]) throws(RendererArgumentError) -> RendererArguments? {
        var parsed = RendererArguments()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--help" || argument == "-h" { return nil }
            guard argument.hasPrefix("--") else { throw .unexpected(argument) }
            // --option=value or --option value.
            let option: String
            let value: String
            if let equals = argument.firstIndex(of: "=") {
                option = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard let next = remaining.popFirst() else { throw .missingValue(option: argument) }
                option = argument
                value = next
            }
            try parsed.set(option, to: value)
        }
        return parsed
    }

    private mutating func set(_ option: String, to value: String) throws(RendererArgumentError) {
        switch option {
        case "--memory-limit":
            guard let megabytes = Int(value), megabytes == 0 || (64...(1 << 20)).contains(megabytes) else {
                throw .invalidValue(option: option, value: value, expected: "0 or 64 to \(1 << 20) (MiB)")
            }
            memoryLimitMiB = megabytes
        case "--cpu-limit":
            guard let seconds = Int(value), (0...86_400).contains(seconds) else {
                throw .invalidValue(option: option, value: value, expected: "0 to 86400 seconds")
            }
            cpuSeconds = seconds
        case "--office":
            guard value.hasPrefix("/") else {
                throw .invalidValue(option: option, value: value, expected: "a folder's absolute path")
            }
            officeProgramFolder = value
        case "--workspace":
            guard value.hasPrefix("/") else {
                throw .invalidValue(option: option, value: value, expected: "a folder's absolute path")
            }
            workspace = value
        case "--confine-files":
            switch value {
            case "required": filesConfinementRequired = true
            case "best-effort": filesConfinementRequired = false
            default: throw .invalidValue(option: option, value: value, expected: "required or best-effort")
            }
        case "--sandbox":
            switch value {
            case "seccomp": sandboxed = true
            case "none": sandboxed = false
            default: throw .invalidValue(option: option, value: value, expected: "seccomp or none")
            }
        default:
            // The test hooks exist in debug builds only: a release renderer refuses them as unknown.
            #if DEBUG
                switch option {
                case "--debug-crash-on": triggers.crashOn = value
                case "--debug-hang-on": triggers.hangOn = value
                case "--debug-slow-on": triggers.slowOn = value
                case "--debug-forge-reply-on": triggers.forgeReplyOn = value
                case "--debug-spin-on": triggers.spinOn = value
                case "--debug-socket-on": triggers.socketOn = value
                case "--debug-write-on": triggers.writeOn = value
                case "--debug-exec-on": triggers.execOn = value
                case "--debug-worn-out-on": triggers.wornOutOn = value
                default: throw .unknownOption(option)
                }
            #else
                throw .unknownOption(option)
            #endif
        }
    }
}

/// A `glance-renderer` command line that cannot be run; its description is the one line printed.
public enum RendererArgumentError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String)
    case unexpected(String)
    case missingValue(option: String)
    case invalidValue(option: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .unknownOption(let option): return "unknown option \(DisplayText.escaped(option)) (see --help)"
        case .unexpected(let argument):
            return "unexpected argument \(DisplayText.escaped(argument)): every argument is an --option"
        case .missingValue(let option): return "\(DisplayText.escaped(option)) needs a value"
        case .invalidValue(let option, let value, let expected):
            return "\(option) \(DisplayText.escaped(value)): expected \(expected)"
        }
    }
}
