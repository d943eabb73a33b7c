import GlanceCore

extension FormatFamily {
    /// PostScript (`%!PS`) and EPS (`%!PS-Adobe-… EPSF-…`, or the DOS binary EPS's `C5 D0 D3 C6`),
    /// drawn by Ghostscript (``PostScriptRenderer``). Before text, which a PostScript program also is.
    /// Either gzip-compressed too (``GzipPostScript``).
    /// A PostScript program's pages are pages (as its `%%Pages` comment counts them).
    public static let postScript = FormatFamily(
        name: "PostScript", contentTypes: [.postScript, .encapsulatedPostScript],
        sniffRules: [
            SniffRule(priority: 402) { PostScriptHeader.type(of: $0.prefix) },
            SniffRule(priority: 403) { GzipPostScript.type(of: $0.prefix) },
        ],
        capabilities: [.pages]
    ) { _, _ in PostScriptRenderer() }
}
