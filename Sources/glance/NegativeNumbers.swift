/// Negative numbers given to long options.
///
/// ArgumentParser reads `--timeout -1` as the option `--timeout` without a value followed by an
/// option `-1`, and says "Missing value for '--timeout'", which hides the real mistake. Joined as
/// `--timeout=-1`, the value reaches the option's own check, which says what range it takes.
enum NegativeNumbers {
    /// `arguments` with each long option that is followed by a negative number (`-1`, `-0.5`)
    /// joined to it with `=`. Nothing else changes: no option of glance is named like a number,
    /// so such an argument could only ever be a value. After `--`, nothing is touched.
    static func joined(_ arguments: [String]) -> [String] {
        var result: [String] = []
        result.reserveCapacity(arguments.count)
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result.append(contentsOf: arguments[index...])
                break
            }
            if argument.hasPrefix("--"), argument.count > 2, !argument.contains("="), index + 1 < arguments.count,
                isNegativeNumber(arguments[index + 1])
            {
                result.append(argument + "=" + arguments[index + 1])
                index += 2
                continue
            }
            result.append(argument)
            index += 1
        }
        return result
    }

    /// Whether `text` is a minus sign followed by a decimal number (`-1`, `-0.25`, `-.5`).
    static func isNegativeNumber(_ text: String) -> Bool {
        guard text.hasPrefix("-"), text.count > 1 else { return false }
        let digits = text.dropFirst()
        var sawDigit = false
        var sawPoint = false
        for character in digits {
            if character.isASCII, character.isNumber {
                sawDigit = true
            } else if character == ".", !sawPoint {
                sawPoint = true
            } else {
                return false
            }
        }
        return sawDigit
    }
}
