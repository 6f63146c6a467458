extension PrinterMap {
    /// What is wrong with an entry of `printers:`; the settings file's
    /// reader says where it is.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        case noPrinters
        /// A printer's name whose value is not its entries.
        case needsEntries(prefix: String)
        /// An item of the list form without its `name:`.
        case unnamed
        case notAPrinterName(String)
        case mappedTwice(prefix: String)
        case unknownKey(String)
        case unknownProfile(String)
        case notAnEntity(key: String, prefix: String)
        case notACamera(prefix: String)
        case setTwice(String)
        case alreadyMapped(entity: String, as: String)
        case noStates
        case unknownStatusWord(state: String)
        case emptyState
        case stateTwice(String)
        case needsStatus(prefix: String)

        public var description: String {
            switch self {
            case .noPrinters: "no printers under \"printers:\""
            case .needsEntries(let prefix): "\"\(prefix)\" needs its entities below it (status: sensor.…)"
            case .unnamed: "each printer of the list needs its name: (the prefix)"
            case .notAPrinterName(let prefix): "\"\(prefix)\" is not a printer name (letters, digits, _ and -)"
            case .mappedTwice(let prefix): "printer \"\(prefix)\" is mapped twice"
            case .unknownKey(let key):
                "unknown key \"\(key)\""
                    + (ClosestName.to(key, in: PrinterMap.keys).map { " (did you mean \($0)?)" }
                        ?? " (known: \(PrinterMap.keys.joined(separator: ", ")))")
            case .unknownProfile(let name):
                "unknown profile \"\(name)\" (known: " + PrinterProfile.builtIn.map(\.name).joined(separator: ", ") + ")"
            case .notAnEntity(let key, let prefix): "\(key) must be an entity id such as sensor.\(prefix)_\(key)"
            case .notACamera(let prefix): "camera must be a camera or image entity id such as camera.\(prefix)_camera"
            case .setTwice(let key): "\(key) is set twice"
            case .alreadyMapped(let entity, let owner): "\(entity) is already \(owner)"
            case .noStates: "\"states:\" has no entries"
            case .unknownStatusWord(let state):
                "\"\(state)\" must map to one of " + PrinterMap.statusWords.keys.sorted().joined(separator: ", ")
            case .emptyState: "an empty state text"
            case .stateTwice(let state): "state \"\(state)\" is mapped twice"
            case .needsStatus(let prefix): "printer \"\(prefix)\" needs a status entity (or only a camera)"
            }
        }
    }
}
