import PrintBridgeCore

/// Phones' own credentials and the pairing codes traded for them. The store
/// keeps only SHA-256 digests (hex) of both: a copy of the store gives no
/// way in. The caller (the API) hashes what it is given.
extension DeviceStore {
    /// A phone's credential as the store knows it.
    public struct PhoneCredential: Hashable, Sendable {
        public var id: String
        public var name: String?
        /// The device it registered (nil until the phone registers).
        public var deviceID: String?
        public var createdAt: EpochTime
        public var revokedAt: EpochTime?
    }

    /// Keeps a new pairing code's digest until `expires`; codes past their
    /// time are forgotten on the way.
    public func addPairingCode(hash: String, expires: EpochTime) throws(Error) {
        let now = clock.now().seconds
        try run { () throws(SQLiteDatabase.Error) in
            try database.query("DELETE FROM pairing_codes WHERE expires_at <= ?", [.real(now)])
            try database.query("INSERT OR REPLACE INTO pairing_codes (hash, expires_at) VALUES (?, ?)",
                               [.text(hash), .real(expires.seconds)])
        }
    }

    /// Trades a pairing code (its digest) for a new credential (its id and
    /// digest), once: the code is gone whatever happens next. False when
    /// there is no such code or its time is over.
    public func redeemPairingCode(
        hash: String, credentialID: String, credentialHash: String, name: String?
    ) throws(Error) -> Bool {
        let now = clock.now().seconds
        return try run { () throws(SQLiteDatabase.Error) in
            try database.transaction { () throws(SQLiteDatabase.Error) in
                var expires: Double?
                try database.query("SELECT expires_at FROM pairing_codes WHERE hash = ?", [.text(hash)]) { expires = $0.real(0) }
                try database.query("DELETE FROM pairing_codes WHERE hash = ? OR expires_at <= ?", [.text(hash), .real(now)])
                guard let expires, expires > now else { return false }
                try database.query("""
                    INSERT INTO phone_credentials (id, hash, name, created_at) VALUES (?, ?, ?, ?)
                    """, [.text(credentialID), .text(credentialHash), .optional(name), .real(now)])
                return true
            }
        }
    }

    /// The credential whose digest is `hash`, revoked ones included.
    public func phoneCredential(hash: String) throws(Error) -> PhoneCredential? {
        try run { () throws(SQLiteDatabase.Error) in
            var found: PhoneCredential?
            try database.query(
                "SELECT id, name, device_id, created_at, revoked_at FROM phone_credentials WHERE hash = ?", [.text(hash)]
            ) { row in found = Self.credential(row) }
            return found
        }
    }

    /// Every phone credential, newest first.
    public func phoneCredentials() throws(Error) -> [PhoneCredential] {
        try run { () throws(SQLiteDatabase.Error) in
            var list: [PhoneCredential] = []
            try database.query(
                "SELECT id, name, device_id, created_at, revoked_at FROM phone_credentials ORDER BY created_at DESC, id"
            ) { row in list.append(Self.credential(row)) }
            return list
        }
    }

    /// The phone that holds credential `id` registered as `deviceID`.
    public func bindCredential(id: String, deviceID: String) throws(Error) {
        try run { () throws(SQLiteDatabase.Error) in
            try database.query("UPDATE phone_credentials SET device_id = ? WHERE id = ?", [.text(deviceID), .text(id)])
        }
    }

    /// Revokes the credentials of device `deviceID` (or the credential with
    /// that id); returns how many were live. Takes effect at the next request.
    @discardableResult
    public func revokeCredentials(of deviceOrCredential: String) throws(Error) -> Int {
        let now = clock.now().seconds
        return try run { () throws(SQLiteDatabase.Error) in
            try database.query("""
                UPDATE phone_credentials SET revoked_at = ?1 WHERE (device_id = ?2 OR id = ?2) AND revoked_at IS NULL
                """, [.real(now), .text(deviceOrCredential)])
            return database.changes
        }
    }

    private static func credential(_ row: SQLiteDatabase.Row) -> PhoneCredential {
        PhoneCredential(
            id: row.text(0) ?? "", name: row.text(1), deviceID: row.text(2), createdAt: EpochTime(seconds: row.real(3)),
            revokedAt: row.isNull(4) ? nil : EpochTime(seconds: row.real(4)))
    }
}
