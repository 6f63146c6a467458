/// The store's schema, as numbered migrations. `PRAGMA user_version` says how
/// many have run; each runs once, in a transaction, in order. Never edit a
/// published migration: add the next one.
enum StoreSchema {
    static let migrations: [String] = [
        // 1: devices, followed printers, Live Activity tokens, printer memory.
        """
        CREATE TABLE devices (
            id TEXT PRIMARY KEY,
            apns_token TEXT NOT NULL UNIQUE,
            environment TEXT,
            ha_url TEXT,
            printer_name TEXT,
            created_at REAL NOT NULL,
            last_seen REAL NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0,
            notifications_enabled INTEGER NOT NULL DEFAULT 1,
            on_start INTEGER NOT NULL DEFAULT 1,
            on_complete INTEGER NOT NULL DEFAULT 1,
            on_failed INTEGER NOT NULL DEFAULT 1,
            on_paused INTEGER NOT NULL DEFAULT 1,
            on_milestone INTEGER NOT NULL DEFAULT 1,
            push_to_start_token TEXT
        );
        CREATE TABLE device_printers (
            device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            printer_prefix TEXT NOT NULL,
            PRIMARY KEY (device_id, printer_prefix)
        );
        CREATE TABLE activity_tokens (
            device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            printer_prefix TEXT NOT NULL,
            token TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (device_id, printer_prefix)
        );
        CREATE TABLE printer_state (
            prefix TEXT PRIMARY KEY,
            last_status TEXT,
            print_id TEXT,
            milestones_sent TEXT NOT NULL DEFAULT '',
            milestone_reference REAL,
            last_live_activity_push REAL,
            live_activity_due REAL,
            updated_at REAL NOT NULL
        );
        """,
        // 2: the last status seen when it is not yet acted on (a held
        // verdict); since when this store has watched (store_meta).
        """
        ALTER TABLE printer_state ADD COLUMN held_status TEXT;
        ALTER TABLE printer_state ADD COLUMN held_due REAL;
        ALTER TABLE printer_state ADD COLUMN held_file TEXT;
        CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
        // 3: Live Activity tokens belong to activities, unique by token; a
        // phone only when the app said which (the seed app never does).
        """
        CREATE TABLE activities (
            token TEXT PRIMARY KEY,
            printer_prefix TEXT NOT NULL,
            device_id TEXT REFERENCES devices(id) ON DELETE CASCADE,
            created_at REAL NOT NULL
        );
        INSERT INTO activities (token, printer_prefix, device_id, created_at)
            SELECT token, printer_prefix, device_id, created_at FROM activity_tokens;
        DROP TABLE activity_tokens;
        """,
        // 4: the outbox: pushes APNs has not yet answered, kept across
        // outages and restarts (PrintBridgeCore's Outbox says the rules).
        """
        CREATE TABLE outbox (
            sequence INTEGER PRIMARY KEY,
            token TEXT NOT NULL,
            kind TEXT NOT NULL,
            event TEXT NOT NULL,
            printer_prefix TEXT NOT NULL,
            device_id TEXT NOT NULL,
            token_kind TEXT NOT NULL,
            topic TEXT NOT NULL,
            priority INTEGER NOT NULL,
            collapse_id TEXT,
            apns_id TEXT,
            expiration REAL NOT NULL,
            created_at REAL NOT NULL,
            payload TEXT NOT NULL
        );
        """,
        // 5: print history: each print that ended, the last 500 per printer.
        """
        CREATE TABLE print_history (
            print_id TEXT PRIMARY KEY,
            printer_prefix TEXT NOT NULL,
            printer_name TEXT,
            file TEXT,
            started_at REAL NOT NULL,
            ended_at REAL NOT NULL,
            outcome TEXT NOT NULL,
            reason TEXT,
            progress REAL,
            current_layer INTEGER,
            total_layers INTEGER
        );
        CREATE INDEX print_history_by_printer ON print_history (printer_prefix, ended_at);
        """,
        // 6: alerts in the phone's language, printer-error and bed-cooled
        // switches; each printer's told HMS errors and a finish's cooling bed.
        """
        ALTER TABLE devices ADD COLUMN language TEXT;
        ALTER TABLE devices ADD COLUMN on_printer_error INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE devices ADD COLUMN on_bed_cooled INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE printer_state ADD COLUMN told_errors TEXT;
        ALTER TABLE printer_state ADD COLUMN cleared_errors TEXT NOT NULL DEFAULT '';
        ALTER TABLE printer_state ADD COLUMN errors_due REAL;
        ALTER TABLE printer_state ADD COLUMN bed_cooling_since REAL;
        """,
        // 7: a failure the integration announced, the phones a pause was
        // told to (a resume replaces it quietly), a printer gone quiet
        // mid-print (since when, when "Printer Offline" is due, and to whom
        // it was told: NULL until told).
        """
        ALTER TABLE printer_state ADD COLUMN failure_announced REAL;
        ALTER TABLE printer_state ADD COLUMN pause_told_to TEXT NOT NULL DEFAULT '';
        ALTER TABLE printer_state ADD COLUMN silent_since REAL;
        ALTER TABLE printer_state ADD COLUMN offline_due REAL;
        ALTER TABLE printer_state ADD COLUMN offline_told_to TEXT;
        """,
        // 8: the alerts sent to each phone, for the app's history: what it
        // read (title and body in its language), and what became of it
        // (pending until APNs's answer or the push's expiry settles it).
        // `apns_id` finds the row when the outbox settles its push;
        // `snapshot` is the picture's link, once alerts carry one.
        """
        CREATE TABLE notifications (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            printer_prefix TEXT NOT NULL,
            event TEXT NOT NULL,
            title TEXT NOT NULL,
            body TEXT NOT NULL,
            reason TEXT,
            created_at REAL NOT NULL,
            outcome TEXT NOT NULL DEFAULT 'pending',
            apns_id TEXT NOT NULL UNIQUE,
            snapshot TEXT
        );
        CREATE INDEX notifications_by_device ON notifications (device_id, created_at DESC, id DESC);
        """,
        // 9: the switch for the silent background push when a print ends
        // (the app refreshes its history and statistics); on for every phone.
        """
        ALTER TABLE devices ADD COLUMN background_refresh INTEGER NOT NULL DEFAULT 1;
        """,
        // 10: the switch for a picture of the print in the alerts that have
        // one; on for every phone.
        """
        ALTER TABLE devices ADD COLUMN snapshots INTEGER NOT NULL DEFAULT 1;
        """,
        // 11: the API speaks HTTPS from now on; a store that already had
        // phones (paired over plain HTTP) remembers it, so they keep working
        // over plain HTTP until they pair again (API_PLAIN_HTTP=auto).
        """
        INSERT OR REPLACE INTO store_meta (key, value)
        SELECT 'plain_http_phones', '1' WHERE EXISTS (SELECT 1 FROM devices);
        """,
        // 12: a credential per phone (only its SHA-256 kept), bound to the
        // device it registered, revoked on its own; one-time pairing codes
        // (hashed, expiring) that phones trade for a credential.
        """
        CREATE TABLE phone_credentials (
            id TEXT PRIMARY KEY,
            hash TEXT NOT NULL UNIQUE,
            name TEXT,
            device_id TEXT REFERENCES devices(id) ON DELETE SET NULL,
            created_at REAL NOT NULL,
            revoked_at REAL
        );
        CREATE INDEX phone_credentials_by_device ON phone_credentials (device_id);
        CREATE TABLE pairing_codes (
            hash TEXT PRIMARY KEY,
            expires_at REAL NOT NULL
        );
        """,
        // 13: statistics. Each print that ended, kept (unlike the history's
        // last 500) as a compact row: printers, reasons and materials named
        // once in `stats_names` (kind 0 printer prefix, 1 reason, 2
        // material "type<US>colour"), times in whole seconds, the outcome a
        // number (0 complete, 1 failed, 2 cancelled, 3 abandoned), its material
        // totals, ordered by when it ended (a year's query reads one range).
        // The material each used, where reported. Daily roll-ups (UTC days,
        // per printer: outcomes, failures by reason, material, the longest
        // print), and every printer's per UTC hour (the series of a zone
        // whose offset is whole hours), made as prints are written, answer
        // whole days and hours at once and keep the figures of prints the
        // retention takes out. The history and the
        // printer memory learn pauses and materials; the prints already in
        // the history are counted (their pauses unknown).
        """
        ALTER TABLE print_history ADD COLUMN paused_seconds REAL;
        ALTER TABLE print_history ADD COLUMN materials TEXT;
        ALTER TABLE printer_state ADD COLUMN paused_seconds REAL DEFAULT 0;
        ALTER TABLE printer_state ADD COLUMN paused_since REAL;
        ALTER TABLE printer_state ADD COLUMN spools_seen TEXT NOT NULL DEFAULT '';
        CREATE TABLE stats_names (
            id INTEGER PRIMARY KEY,
            kind INTEGER NOT NULL,
            name TEXT NOT NULL,
            UNIQUE (kind, name)
        );
        CREATE TABLE print_stats (
            ended_at INTEGER NOT NULL,
            printer INTEGER NOT NULL,
            started_at INTEGER NOT NULL,
            outcome INTEGER NOT NULL,
            paused INTEGER,
            layers INTEGER,
            reason INTEGER,
            grams REAL,
            meters REAL,
            PRIMARY KEY (ended_at, printer, started_at)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX print_stats_by_print ON print_stats (printer, started_at);
        CREATE TABLE print_material (
            ended_at INTEGER NOT NULL,
            printer INTEGER NOT NULL,
            started_at INTEGER NOT NULL,
            slot INTEGER NOT NULL,
            material INTEGER NOT NULL,
            grams REAL,
            meters REAL,
            PRIMARY KEY (ended_at, printer, started_at, slot)
        ) WITHOUT ROWID;
        CREATE TABLE print_days (
            day INTEGER NOT NULL,
            printer INTEGER NOT NULL,
            outcome INTEGER NOT NULL,
            prints INTEGER NOT NULL,
            seconds INTEGER NOT NULL,
            paused INTEGER NOT NULL,
            PRIMARY KEY (day, printer, outcome)
        ) WITHOUT ROWID;
        CREATE TABLE print_day_reasons (
            day INTEGER NOT NULL,
            printer INTEGER NOT NULL,
            reason INTEGER NOT NULL,
            prints INTEGER NOT NULL,
            PRIMARY KEY (day, printer, reason)
        ) WITHOUT ROWID;
        CREATE TABLE print_day_material (
            day INTEGER NOT NULL,
            printer INTEGER NOT NULL,
            material INTEGER NOT NULL,
            grams REAL,
            meters REAL,
            prints INTEGER NOT NULL,
            PRIMARY KEY (day, printer, material)
        ) WITHOUT ROWID;
        CREATE TABLE print_day_longest (
            day INTEGER NOT NULL,
            printer INTEGER NOT NULL,
            started_at INTEGER NOT NULL,
            ended_at INTEGER NOT NULL,
            outcome INTEGER NOT NULL,
            PRIMARY KEY (day, printer)
        ) WITHOUT ROWID;
        CREATE TABLE print_hours (
            hour INTEGER NOT NULL,
            outcome INTEGER NOT NULL,
            prints INTEGER NOT NULL,
            seconds INTEGER NOT NULL,
            paused INTEGER NOT NULL,
            grams REAL NOT NULL,
            meters REAL NOT NULL,
            PRIMARY KEY (hour, outcome)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO stats_names (kind, name) SELECT DISTINCT 0, printer_prefix FROM print_history;
        INSERT OR IGNORE INTO stats_names (kind, name)
            SELECT DISTINCT 1, reason FROM print_history WHERE reason IS NOT NULL;
        INSERT OR IGNORE INTO print_stats (ended_at, printer, started_at, outcome, paused, layers, reason)
            SELECT max(CAST(h.ended_at AS INTEGER), CAST(h.started_at AS INTEGER)), p.id, CAST(h.started_at AS INTEGER),
                   CASE h.outcome WHEN 'complete' THEN 0 WHEN 'failed' THEN 1 WHEN 'cancelled' THEN 2 ELSE 3 END,
                   NULL, h.total_layers, r.id
            FROM print_history h JOIN stats_names p ON p.kind = 0 AND p.name = h.printer_prefix
            LEFT JOIN stats_names r ON r.kind = 1 AND r.name = h.reason;
        INSERT INTO print_days (day, printer, outcome, prints, seconds, paused)
            SELECT ended_at / 86400, printer, outcome, count(*), sum(ended_at - started_at), 0
            FROM print_stats GROUP BY 1, 2, 3;
        INSERT INTO print_day_reasons (day, printer, reason, prints)
            SELECT ended_at / 86400, printer, reason, count(*) FROM print_stats
            WHERE outcome = 1 AND reason IS NOT NULL GROUP BY 1, 2, 3;
        INSERT INTO print_hours (hour, outcome, prints, seconds, paused, grams, meters)
            SELECT ended_at / 3600, outcome, count(*), sum(ended_at - started_at), 0, 0, 0 FROM print_stats GROUP BY 1, 2;
        INSERT INTO print_day_longest (day, printer, started_at, ended_at, outcome)
            SELECT day, printer, started_at, ended_at, outcome FROM (
                SELECT ended_at / 86400 AS day, printer, started_at, ended_at, outcome,
                       row_number() OVER (PARTITION BY ended_at / 86400, printer
                                          ORDER BY ended_at - started_at DESC) AS rank
                FROM print_stats) WHERE rank = 1;
        """,
        // 14: Live Activity broadcast channels (iOS 18, issue 52): each
        // printer's channel as APNs made it, in the environment it was made
        // in (a sandbox channel means nothing in production); channels to
        // delete, kept until APNs has deleted them; the phones that follow a
        // printer's activity by its channel instead of a token.
        """
        CREATE TABLE printer_channels (
            printer_prefix TEXT NOT NULL,
            environment TEXT NOT NULL,
            channel_id TEXT NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            last_seen REAL NOT NULL,
            PRIMARY KEY (printer_prefix, environment)
        );
        CREATE TABLE channel_deletions (
            channel_id TEXT PRIMARY KEY,
            environment TEXT NOT NULL,
            since REAL NOT NULL
        );
        CREATE TABLE channel_followers (
            device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
            printer_prefix TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (device_id, printer_prefix)
        );
        """,
        // 15: when each phone wants its alerts (issue 53, `AlertSchedule`):
        // quiet hours (minutes after local midnight, an IANA zone, whether
        // the time-sensitive break through), its milestones ("25,50,75";
        // NULL: the agent's), "minutes left" (NULL: off), minutes before an
        // unopened failure is told again (0: never).
        """
        ALTER TABLE devices ADD COLUMN quiet_start INTEGER;
        ALTER TABLE devices ADD COLUMN quiet_end INTEGER;
        ALTER TABLE devices ADD COLUMN quiet_zone TEXT;
        ALTER TABLE devices ADD COLUMN quiet_breakthrough INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE devices ADD COLUMN milestones TEXT;
        ALTER TABLE devices ADD COLUMN minutes_left INTEGER;
        ALTER TABLE devices ADD COLUMN retell_after INTEGER NOT NULL DEFAULT 15;
        """,
        // 16: alerts held for phones in their quiet hours, told as one
        // summary when they end (`PushPlanner.heldAlerts`).
        """
        CREATE TABLE held_alerts (
            id INTEGER PRIMARY KEY,
            device_id TEXT NOT NULL,
            printer_prefix TEXT NOT NULL,
            printer_name TEXT NOT NULL,
            event TEXT NOT NULL,
            file TEXT,
            print_id TEXT,
            milestone INTEGER,
            reason TEXT,
            time_zone TEXT NOT NULL,
            held_at REAL NOT NULL,
            release_at REAL NOT NULL
        );
        """,
        // 17: when the phone's user opened an alert (the app says so), so a
        // failure nobody opened is told again.
        """
        ALTER TABLE notifications ADD COLUMN opened_at REAL;
        """,
        // 18: the switch for "First Layer Done"; off for every phone.
        """
        ALTER TABLE devices ADD COLUMN on_first_layer INTEGER NOT NULL DEFAULT 0;
        """,
        // 19: failures and printer errors waiting to be told again if nobody
        // opens them (`PushPlanner.retells`): the push as the outbox keeps
        // one, the print or error it was about, and when it is due.
        """
        CREATE TABLE retells (
            print_id TEXT,
            error_text TEXT,
            due REAL NOT NULL,
            token TEXT NOT NULL,
            kind TEXT NOT NULL,
            event TEXT NOT NULL,
            printer_prefix TEXT NOT NULL,
            device_id TEXT NOT NULL,
            token_kind TEXT NOT NULL,
            topic TEXT NOT NULL,
            priority INTEGER NOT NULL,
            collapse_id TEXT,
            apns_id TEXT,
            expiration REAL NOT NULL,
            created_at REAL NOT NULL,
            payload TEXT NOT NULL
        );
        """,
    ]
}