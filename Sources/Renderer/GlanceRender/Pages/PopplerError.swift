internal import CGraphics
internal import CPoppler

/// An error reported by poppler-glib (a GError), with its domain, code and message copied out.
public struct PopplerError: Error, Sendable, CustomStringConvertible {
    /// The GError domain's name (`poppler-quark`, `g-file-error-quark`, ...).
    public let domain: String
    public let code: Int32
    public let message: String

    public var description: String { "\(domain) \(code): \(message)" }

    /// Whether poppler says the document needs a password.
    public var isEncrypted: Bool {
        domain == String(cString: g_quark_to_string(glance_poppler_error_quark()))
            && code == Int32(GLANCE_POPPLER_ERROR_ENCRYPTED)
    }

    /// Copies `error` out and frees it.
    init(consuming error: UnsafeMutablePointer<GError>) {
        domain = String(cString: g_quark_to_string(error.pointee.domain))
        code = error.pointee.code
        message = error.pointee.message.map { String(cString: $0) } ?? ""
        g_error_free(error)
    }
}
