-- plateau schema 5: a run's global id, so that runs from many hosts can be
-- told apart and collected into one database (plateau export / import).
--   uuid  a random (version 4) UUID in its canonical lowercase form,
--         8-4-4-4-12 hex digits; given by plateau when the run is created
--         (store_run_insert()), and here to every run stored before this
--         migration.  Unique in the database: an imported run keeps the
--         uuid it was given on its own host, which is how importing twice
--         is recognised.
ALTER TABLE runs ADD COLUMN uuid TEXT
	CHECK (uuid IS NULL OR (length(uuid) = 36 AND uuid GLOB
	'[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'));
UPDATE runs SET uuid = lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) ||
	'-4' || substr(lower(hex(randomblob(2))), 2) || '-' ||
	substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) ||
	'-' || lower(hex(randomblob(6)))
	WHERE uuid IS NULL;
CREATE UNIQUE INDEX runs_uuid ON runs (uuid);
