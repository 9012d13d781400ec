import ArgumentParser

/// Names an option the command does not have, with the closest one it has (`--objetc` → `--object`),
/// for every subcommand alike: the known names come from the command's own help.
enum UnknownOption {
    /// The message for the first unknown `--name` in `arguments` (without the program name), or nil.
    static func message(for arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root._commandName]
        var rest = arguments[...]
        while let next = rest.first,
            let sub = command.configuration.subcommands.first(where: { $0._commandName == next || $0.configuration.aliases.contains(next) })
        {
            command = sub
            path.append(sub._commandName)
            rest = rest.dropFirst()
        }
        let known = knownOptions(of: command)
        for argument in rest {
            if argument == "--" { break }
            guard argument.hasPrefix("--"), argument.count > 2 else { continue }
            let name = String(argument.split(separator: "=", maxSplits: 1)[0])
            if known.contains(name) { continue }
            let help = "see '\(path.joined(separator: " ")) --help'"
            guard let closest = closest(to: name, in: known) else { return "unknown option '\(name)'; \(help)" }
            return "unknown option '\(name)'; did you mean '\(closest)'?"
        }
        return nil
    }

    /// Every `--name` the command's help mentions, plus the ones every command takes.
    static func knownOptions(of command: any ParsableCommand.Type) -> Set<String> {
        let help = CinepackCommand.helpMessage(for: command, includeHidden: true, columns: 10_000)
        var names: Set<String> = ["--help", "--version", "--experimental-dump-help", "--generate-completion-script"]
        var current = ""
        for c in help + " " {
            if c.isLetter || c.isNumber || c == "-" {
                current.append(c)
            } else {
                if current.hasPrefix("--"), current.count > 2 { names.insert(String(current.reversed().drop { $0 == "-" }.reversed())) }
                current = ""
            }
        }
        return names
    }

    /// The known name nearest `name` by edit distance, when near enough to be a slip.
    static func closest(to name: String, in known: Set<String>) -> String? {
        let ranked = known.map { ($0, distance(name, $0)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best = ranked.first, best.1 <= max(2, (name.count - 2) / 3) else { return nil }
        return best.0
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
