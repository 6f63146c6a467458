import PrintBridgeCore

extension DeviceStore {
    /// The key that signs the links to the pictures (store_meta
    /// `snapshot_key`, hex): made by `make` the first time and kept, so links
    /// sent before a restart stay valid. Nil when `make` has no key to give.
    /// Never logged; the store's file is readable by the agent's user alone.
    public func snapshotKey(make: () -> [UInt8]?) throws(Error) -> [UInt8]? {
        try run { () throws(SQLiteDatabase.Error) in
            var stored: String?
            try database.query("SELECT value FROM store_meta WHERE key = 'snapshot_key'") { row in stored = row.text(0) }
            if let stored, let key = Hex.decode(stored), key.count >= 16 { return key }
            guard let key = make() else { return nil }
            try database.query(
                "INSERT OR REPLACE INTO store_meta (key, value) VALUES ('snapshot_key', ?)", [.text(Hex.encode(key))])
            return key
        }
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
