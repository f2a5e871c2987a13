-- plateau schema 1: drives, runs, phases, samples, events.
-- Times are CLOCK_REALTIME nanoseconds since the epoch; latencies are ns.

CREATE TABLE drives (
	id INTEGER PRIMARY KEY,
	kind TEXT NOT NULL CHECK (kind IN ('nvme', 'block', 'file')),
	path TEXT NOT NULL,
	model TEXT NOT NULL DEFAULT '',
	serial TEXT NOT NULL,
	firmware TEXT NOT NULL DEFAULT '',
	eui64 TEXT NOT NULL DEFAULT '',
	nguid TEXT NOT NULL DEFAULT '',
	wwn TEXT NOT NULL DEFAULT '',
	capacity_bytes INTEGER NOT NULL CHECK (capacity_bytes >= 0),
	lba_bytes INTEGER NOT NULL CHECK (lba_bytes > 0),
	first_seen_ns INTEGER NOT NULL,
	-- one row per identity; a firmware update makes a new row
	UNIQUE (kind, model, serial, firmware, eui64, nguid, wwn, capacity_bytes, lba_bytes)
);

CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	drive_id INTEGER NOT NULL REFERENCES drives (id),
	name TEXT NOT NULL,
	plan TEXT NOT NULL,          -- the plan text as the operator gave it
	state TEXT NOT NULL CHECK (state IN ('queued', 'erasing', 'filling',
		'preconditioning', 'sweeping', 'done', 'failed', 'stopped')),
	created_ns INTEGER NOT NULL,
	started_ns INTEGER,
	ended_ns INTEGER,
	host TEXT NOT NULL,
	version TEXT NOT NULL,       -- plateau version that created the run
	error TEXT                   -- why it failed or stopped
);
CREATE INDEX runs_drive ON runs (drive_id);

CREATE TABLE phases (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs (id),
	seq INTEGER NOT NULL CHECK (seq >= 1),   -- order within the run
	kind TEXT NOT NULL CHECK (kind IN ('erase', 'fill', 'precondition', 'sweep')),
	name TEXT NOT NULL DEFAULT '',           -- workload label, e.g. 4k-randwrite
	params TEXT NOT NULL DEFAULT '{}',       -- JSON: what the plan asked for
	state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed',
		'stopped', 'skipped')),
	started_ns INTEGER,
	ended_ns INTEGER,
	progress_bytes INTEGER NOT NULL DEFAULT 0 CHECK (progress_bytes >= 0),
	total_bytes INTEGER NOT NULL DEFAULT 0 CHECK (total_bytes >= 0),
	rounds INTEGER NOT NULL DEFAULT 0 CHECK (rounds >= 0),
	steady INTEGER CHECK (steady IN (0, 1)), -- NULL until judged
	steady_round INTEGER,
	result TEXT,                             -- JSON: erase record, steady evidence
	UNIQUE (run_id, seq)
);

-- One row per interval.  r_ read, w_ write, a_ all I/O; p50..p9999 are the
-- 50th, 90th, 99th, 99.9th and 99.99th percentiles; the histograms are
-- lib/hist.c blobs so percentiles of any span can be recomputed.
CREATE TABLE samples (
	phase_id INTEGER NOT NULL REFERENCES phases (id),
	seq INTEGER NOT NULL CHECK (seq >= 1),
	start_ns INTEGER NOT NULL,
	end_ns INTEGER NOT NULL,
	errors INTEGER NOT NULL DEFAULT 0,
	r_ios INTEGER NOT NULL, r_bytes INTEGER NOT NULL,
	r_lat_mean_ns REAL NOT NULL, r_lat_stddev_ns REAL NOT NULL,
	r_lat_min_ns INTEGER NOT NULL, r_lat_max_ns INTEGER NOT NULL,
	r_lat_p50_ns INTEGER NOT NULL, r_lat_p90_ns INTEGER NOT NULL, r_lat_p99_ns INTEGER NOT NULL,
	r_lat_p999_ns INTEGER NOT NULL, r_lat_p9999_ns INTEGER NOT NULL,
	w_ios INTEGER NOT NULL, w_bytes INTEGER NOT NULL,
	w_lat_mean_ns REAL NOT NULL, w_lat_stddev_ns REAL NOT NULL,
	w_lat_min_ns INTEGER NOT NULL, w_lat_max_ns INTEGER NOT NULL,
	w_lat_p50_ns INTEGER NOT NULL, w_lat_p90_ns INTEGER NOT NULL, w_lat_p99_ns INTEGER NOT NULL,
	w_lat_p999_ns INTEGER NOT NULL, w_lat_p9999_ns INTEGER NOT NULL,
	a_ios INTEGER NOT NULL, a_bytes INTEGER NOT NULL,
	a_lat_mean_ns REAL NOT NULL, a_lat_stddev_ns REAL NOT NULL,
	a_lat_min_ns INTEGER NOT NULL, a_lat_max_ns INTEGER NOT NULL,
	a_lat_p50_ns INTEGER NOT NULL, a_lat_p90_ns INTEGER NOT NULL, a_lat_p99_ns INTEGER NOT NULL,
	a_lat_p999_ns INTEGER NOT NULL, a_lat_p9999_ns INTEGER NOT NULL,
	r_hist BLOB,
	w_hist BLOB,
	-- an interval cut short (a phase's last, a stop): kept so that no I/O goes
	-- unaccounted, but not a round of the steady-state judgement
	partial INTEGER NOT NULL DEFAULT 0 CHECK (partial IN (0, 1)),
	PRIMARY KEY (phase_id, seq),
	CHECK (end_ns > start_ns)
) WITHOUT ROWID;

CREATE TABLE events (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs (id),
	phase_id INTEGER REFERENCES phases (id),
	time_ns INTEGER NOT NULL,
	kind TEXT NOT NULL,
	message TEXT NOT NULL,
	data TEXT                    -- JSON
);
CREATE INDEX events_run ON events (run_id, id);
