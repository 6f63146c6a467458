import Synchronization

/// One APNs request the agent wants made: who it goes to, the headers that
/// matter and the exact JSON body.
public struct Push: Hashable, Sendable {
    /// `apns-push-type`.
    public enum Kind: String, Hashable, Sendable, Codable {
        case alert
        case liveActivity = "liveactivity"
        /// A silent push that wakes the app (`content-available: 1`, priority 5).
        case background
    }

    /// What happened, for logs, metrics and replay output.
    public enum Event: String, Hashable, Sendable, Codable {
        case started, paused, complete, failed, cancelled, milestone
        /// A printer error, told on its own; the bed cooled after a finish.
        case printerError = "printer_error"
        case bedCooled = "bed_cooled"
        /// A paused print goes on: a quiet note that replaces "Print Paused".
        case resumed
        /// A print's first layer is down (issue 53): worth a look.
        case firstLayer = "first_layer"
        /// "N minutes left", for the phones that asked (issue 53).
        case minutesLeft = "minutes_left"
        /// The printer of a print under way stopped reporting; it is back
        /// (a quiet note that replaces "Printer Offline").
        case offline
        case backOnline = "back_online"
        /// Live Activity events.
        case update, end, start
        /// A print ended and the history has its record: a silent background
        /// push (`Kind.background`) so the app refreshes its history and statistics.
        case history
        /// A test alert asked for (`printbridge send-test`, the app's
        /// `POST /api/devices/{deviceId}/test-push`): about no printer.
        case test
        /// What was held in a phone's quiet hours, told when they end
        /// (`QuietSummary`): about no one printer.
        case summary
        /// An alert a Home Assistant automation sent (`printbridge_notify`).
        case notify
    }

    /// Which of a device's tokens the push is addressed to.
    public enum TokenKind: String, Hashable, Sendable, Codable {
        case device
        case activity
        case pushToStart = "push_to_start"
        /// A broadcast to a printer's channel (iOS 18): `token` is the
        /// channel id, and the push goes to `/4/broadcasts/apps/{bundle}`
        /// with `apns-channel-id` ("Sending broadcast push notification
        /// requests to APNs"); APNs hands it to every activity on the channel.
        case channel
    }

    public var kind: Kind
    public var event: Event
    public var printerPrefix: String
    public var deviceID: String
    public var token: String
    public var tokenKind: TokenKind
    /// `apns-topic`: the bundle id (alerts, background pushes), plus
    /// `.push-type.liveactivity` for Live Activities.
    public var topic: String
    /// `apns-priority`: 10 now, 5 when power allows (always 5 for a background push).
    public var priority: Int
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    /// `apns-expiration`: after this APNs stops trying to deliver.
    public var expiration: EpochTime
    /// The JSON body, at most 4096 bytes.
    public var payload: [UInt8]
    /// When the agent decided to send it (virtual time in replay).
    public var createdAt: EpochTime
    /// `apns-id`, when the push is one of a print's notifications: the same
    /// for the same print, event and token, so one sent again after a crash
    /// (its memory not yet saved) is recognisably the same notification.
    /// Nil: the sender makes a random one.
    public var apnsID: String?
    /// The alert would carry a picture of the print if the camera gives one
    /// in time (`AlertPayload.addingSnapshot`). Only while the agent holds
    /// it; not kept in the store (a push sent after a restart goes without).
    public var wantsSnapshot = false

    public init(
        kind: Kind, event: Event, printerPrefix: String, deviceID: String, token: String,
        tokenKind: TokenKind, topic: String, priority: Int, collapseID: String?,
        expiration: EpochTime, payload: [UInt8], createdAt: EpochTime
    ) {
        self.kind = kind
        self.event = event
        self.printerPrefix = printerPrefix
        self.deviceID = deviceID
        self.token = token
        self.tokenKind = tokenKind
        self.topic = topic
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
        self.payload = payload
        self.createdAt = createdAt
    }

    /// A Live Activity push whose body carries an `alert` (`aps.alert`, a
    /// pause's or a failure's: `LiveActivityPayload.update`). Read from the
    /// body, so it holds for a push restored from the store. A string value
    /// cannot fake it: inside one, the quotes would be escaped (`\"`).
    public var carriesActivityAlert: Bool {
        guard kind == .liveActivity else { return false }
        let key = Array(#""alert":{"#.utf8)
        guard payload.count >= key.count else { return false }
        var index = 0
        while index + key.count <= payload.count {
            if payload[index] == key[0], payload[index..<index + key.count].elementsEqual(key) { return true }
            index += 1
        }
        return false
    }

    /// A UUID-shaped id (version 8, RFC 9562) derived from `name`: two
    /// 64-bit FNV-1a hashes with different offsets.
    public static func derivedID(_ name: String) -> String {
        var high: UInt64 = 14_695_981_039_346_656_037, low: UInt64 = 0x6C62_272E_07BB_0142
        for byte in name.utf8 {
            high = (high ^ UInt64(byte)) &* 1_099_511_628_211
            low = (low ^ UInt64(byte)) &* 1_099_511_628_211
        }
        high = (high & ~0xF000) | 0x8000  // version 8
        low = (low & ~(0b11 << 62)) | (0b10 << 62)  // RFC 9562 variant
        return uuidText(high, low)
    }

    /// A fresh random apns-id (a version 4 UUID, lowercase), for pushes that
    /// have no derived one (Live Activity updates, background pushes).
    ///
    /// From a xoshiro256** generator seeded once from the system's random
    /// source, not `UUID()`: that reads the kernel's random source for every
    /// id (a system call) and formats it with `snprintf`, then `lowercased()`
    /// copies it again; a fan-out makes one a push. The id only has to be
    /// unique, not secret: APNs uses it to name the notification.
    public static func randomID() -> String {
        let (high, low) = randomIDs.withLock { ($0.next(), $0.next()) }
        return uuidText((high & ~0xF000) | 0x4000, (low & ~(0b11 << 62)) | (0b10 << 62))
    }

    private static let randomIDs = Mutex(Xoshiro256())

    /// Two 64-bit halves as a UUID's text: 8-4-4-4-12 lowercase hex digits,
    /// written straight into the string, a byte's two digits at a time from
    /// a table (formatting through substrings was 3 % of a fan-out's
    /// planning thread, perf on `replay --send`; a nibble at a time ~275
    /// instructions an id, callgrind).
    static func uuidText(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { text in
            let out = UnsafeMutableRawPointer(text.baseAddress!)
            let pairs = UnsafeRawPointer(hexPairs.utf8Start)
            /// Byte `index` (0: the top) of `word`, as two digits at `offset`.
            func put(_ word: UInt64, _ index: Int, at offset: Int) {
                let byte = Int(truncatingIfNeeded: word >> UInt64(56 - 8 * index)) & 0xFF
                out.storeBytes(of: pairs.loadUnaligned(fromByteOffset: 2 * byte, as: UInt16.self), toByteOffset: offset, as: UInt16.self)
            }
            put(high, 0, at: 0); put(high, 1, at: 2); put(high, 2, at: 4); put(high, 3, at: 6)
            out.storeBytes(of: 0x2D, toByteOffset: 8, as: UInt8.self)
            put(high, 4, at: 9); put(high, 5, at: 11)
            out.storeBytes(of: 0x2D, toByteOffset: 13, as: UInt8.self)
            put(high, 6, at: 14); put(high, 7, at: 16)
            out.storeBytes(of: 0x2D, toByteOffset: 18, as: UInt8.self)
            put(low, 0, at: 19); put(low, 1, at: 21)
            out.storeBytes(of: 0x2D, toByteOffset: 23, as: UInt8.self)
            for index in 2..<8 { put(low, index, at: 24 + 2 * (index - 2)) }
            return 36
        }
    }

    /// Each byte's two lowercase hex digits, 00 to ff.
    private static let hexPairs: StaticString = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

    /// The payload as text.
    public var payloadText: String { String(decoding: payload, as: UTF8.self) }

    /// The token shortened for logs and output: never print a whole token.
    public var shortToken: String { TokenFormat.shortened(token) }
}

/// How device tokens are shown and checked.
public enum TokenFormat {
    /// `a1b2c3…e9f0`: enough to tell tokens apart, never the whole token.
    public static func shortened(_ token: String) -> String {
        // Tokens are hex: bytes are characters, and counting them is not a
        // walk through grapheme clusters (3,600 instructions a line of
        // `replay --send` output, callgrind).
        let ascii = token.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard bytes.count > 12, !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return String(unsafeUninitializedCapacity: 13) { text in
                for index in 0..<6 { text[index] = bytes[index] }
                (text[6], text[7], text[8]) = (0xE2, 0x80, 0xA6)  // …
                for index in 0..<4 { text[9 + index] = bytes[bytes.count - 4 + index] }
                return 13
            }
        }
        if let ascii = ascii ?? nil { return ascii }
        guard token.count > 12 else { return String(repeating: "•", count: min(token.count, 4)) }
        return "\(token.prefix(6))…\(token.suffix(4))"
    }

    /// APNs tokens are hex; device tokens are 32 bytes today, Live Activity and
    /// push-to-start tokens longer. Accept 32…200 bytes of hex, even length.
    public static func isPlausibleToken(_ token: String) -> Bool {
        let count = token.utf8.count
        guard count >= 64, count <= 400, count % 2 == 0 else { return false }
        return token.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}
