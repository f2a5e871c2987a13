-- plateau schema 3: who asked for a run (an audit record).  NULL is unknown:
-- every run stored before this migration, or a part plateau could not learn.
--   requester_uid  the requesting user (the daemon's client's SO_PEERCRED
--                  uid, or the uid of a foreground `plateau run`)
--   requester_pid  the requesting process
--   requester_cmd  its command line as read by the daemon, arguments joined
--                  by blanks, e.g. 'plateau start nightly.plan'
--   requester_via  'plateaud': a client asked the daemon over its socket;
--                  'plateau run': the CLI ran it in the foreground
ALTER TABLE runs ADD COLUMN requester_uid INTEGER
	CHECK (requester_uid BETWEEN 0 AND 4294967294);
ALTER TABLE runs ADD COLUMN requester_pid INTEGER
	CHECK (requester_pid BETWEEN 1 AND 2147483647);
ALTER TABLE runs ADD COLUMN requester_cmd TEXT;
ALTER TABLE runs ADD COLUMN requester_via TEXT
	CHECK (requester_via IN ('plateaud', 'plateau run'));
