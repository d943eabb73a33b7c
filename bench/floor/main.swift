// The floor of `make bench`'s serving measure: a bare Hummingbird application, of the version and
// the server stack `glance serve` uses (HTTP/1.1, or HTTP/2 and HTTP/1.1 over TLS by ALPN),
// answering the same thumbnail bytes from memory with no middleware at all. What glance's
// thumbnail GET costs beyond this is what its own work costs (sign-in, the Host check, the route
// table, the cache, the log, the metrics, the headers).
//
//     bench-floor FOLDER [--tls CERTIFICATE KEY]
//
// serves every file below FOLDER at its path (`FOLDER/thumbnails/a.jpg` at `/thumbnails/a.jpg`,
// any query ignored) on a free loopback port, and prints `http://127.0.0.1:PORT` (or https) once
// it listens.
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOSSL

/// The files below `folder`, by the path they are served at.
func loadFiles(below folder: String) -> [String: (bytes: ByteBuffer, type: String)] {
    let root = URL(fileURLWithPath: folder).standardizedFileURL.path
    var files: [String: (bytes: ByteBuffer, type: String)] = [:]
    let types = ["jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp"]
    for case let relative as String in FileManager.default.enumerator(atPath: root) ?? FileManager.DirectoryEnumerator()
    {
        guard let data = FileManager.default.contents(atPath: root + "/" + relative) else { continue }
        let type = types[(relative as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
        files["/" + relative] = (ByteBuffer(bytes: data), type)
    }
    return files
}

let arguments = CommandLine.arguments
guard arguments.count == 2 || (arguments.count == 5 && arguments[2] == "--tls") else {
    FileHandle.standardError.write(Data("usage: bench-floor FOLDER [--tls CERTIFICATE KEY]\n".utf8))
    exit(2)
}
let files = loadFiles(below: arguments[1])
let router = Router()
router.get("**") { request, _ -> Response in
    let path = request.uri.path.removingPercentEncoding ?? request.uri.path
    guard let file = files[path] else { throw HTTPError(.notFound) }
    return Response(
        status: .ok, headers: [.contentType: file.type, .cacheControl: "private, max-age=31536000, immutable"],
        body: .init(byteBuffer: file.bytes))
}
let server: HTTPServerBuilder
if arguments.count == 5 {
    let tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(arguments[3]).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: arguments[4], format: .pem)))
    server = try .http2Upgrade(tlsConfiguration: tls)
} else {
    server = .http1()
}
let scheme = arguments.count == 5 ? "https" : "http"
let application = Application(
    router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in
        FileHandle.standardOutput.write(Data("\(scheme)://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
    })
try await application.runService()
