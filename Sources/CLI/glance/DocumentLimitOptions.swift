import ArgumentParser
import Glance
import GlanceCore
import GlancePipeline

/// The limits on what a renderer is given, shared by every command that renders: a document
/// beyond one is refused with a message that names the option.
struct DocumentLimitOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Refuse images that would need more than this many decoded pixels.")
    var maxPixels: Int = ThumbnailLimits.defaultMaxPixels

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Refuse a document larger than this many MiB (text, videos, sound, comic books and files drawn from the preview they carry are exempt: they are read a part at a time).",
            valueName: "MiB"))
    var maxFileSize: Int = ThumbnailLimits.defaultMaxFileBytes >> 20

    func validate() throws {
        try OptionChecks.maxPixels(maxPixels)
        try OptionChecks.maxFileSize(maxFileSize)
    }

    /// `--max-file-size` in bytes.
    var maxFileBytes: Int { maxFileSize << 20 }

    /// An indexer's options with these limits.
    func indexerOptions() -> Indexer.Options {
        DocumentLimits(maxPixels: maxPixels, maxFileBytes: maxFileBytes).indexerOptions(naming: .commandLine)
    }
}
