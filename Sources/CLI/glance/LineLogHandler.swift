import ArgumentParser
import Foundation
import GlanceCore
import GlanceListing
import Logging

/// swift-log's output for `glance watch`: one line per event on standard
/// error, as text (`2026-11-23T07:01:02Z info refreshed path=a.jpg latencyMs=120`) or as one JSON
/// object per line for log collectors. Callers hand it raw values (a path as it is); it makes
/// each one safe for a line here, once (``DisplayText/lineSafe(_:)``).
struct LineLogHandler: LogHandler {
    enum Format: String, CaseIterable, Sendable {
        case text, json
    }

    let label: String
    let format: Format
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        let time = ListingFormatter.iso8601(Date())
        let line: String
        switch format {
        case .text:
            let pairs = fields.sorted { $0.key < $1.key }.map { key, value in
                let text = DisplayText.lineSafe("\(value)")
                return text.contains(" ") || text.isEmpty ? "\(key)=\"\(text)\"" : "\(key)=\(text)"
            }
            line = ([time, event.level.rawValue, DisplayText.lineSafe("\(event.message)")] + pairs).joined(
                separator: " ")
        case .json:
            var object: [String: Any] = [
                "time": time, "level": event.level.rawValue, "message": DisplayText.lineSafe("\(event.message)"),
            ]
            for (key, value) in fields { object[key] = Self.jsonValue(value) }
            line =
                (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
                .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
        StandardError.writeRaw(line + "\n")
    }
}

extension LineLogHandler {
    /// A metadata value as JSON: a number given as one (`latencyMs`) stays a number, anything
    /// else is its text.
    static func jsonValue(_ value: Logger.MetadataValue) -> Any {
        if case .stringConvertible(let convertible) = value {
            if let integer = convertible as? Int { return integer }
            if let number = convertible as? Double, number.isFinite { return number }
        }
        return DisplayText.lineSafe("\(value)")
    }
}

extension LineLogHandler.Format: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
