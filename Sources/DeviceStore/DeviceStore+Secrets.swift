extension DeviceStore {
    /// The key that signs the links to the pictures (store_meta
    /// `snapshot_key`, hex): made by `make` the first time and kept, so links
    /// sent before a restart stay valid. Nil when `make` has no key to give.
    /// Never logged; the store's file is readable by the agent's user alone.
    public func snapshotKey(make: () -> [UInt8]?) throws(Error) -> [UInt8]? {
        try run { () throws(SQLiteDatabase.Error) in
            var stored: String?
            try database.query("SELECT value FROM store_meta WHERE key = 'snapshot_key'") { row in stored = row.text(0) }
            if let stored, let key = Self.bytes(hex: stored), key.count >= 16 { return key }
            guard let key = make() else { return nil }
            let hex = key.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            try database.query("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('snapshot_key', ?)", [.text(hex)])
            return key
        }
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}

extension DeviceStore {
    /// Whether this store had phones before the API spoke HTTPS (schema 11's
    /// upgrade noted it): they were paired over plain HTTP.
    public func hadPlainHTTPPhones() throws(Error) -> Bool {
        try run { () throws(SQLiteDatabase.Error) in
            var found = false
            try database.query("SELECT value FROM store_meta WHERE key = 'plain_http_phones'") { row in found = row.text(0) == "1" }
            return found
        }
    }
}
