import GlanceCore

extension FormatFamily {
    /// Plain text: no signature; what is left after every family's signatures, when the
    /// ``TextEncodingDetector`` accepts it (see ``ContentSniffer``). Only its start is read.
    public static let text = FormatFamily(
        name: "text", contentTypes: [.text], sniffRules: [], capabilities: [.readsOnlyWhatItNeeds]
    ) { _, tools in tools.text }
}
