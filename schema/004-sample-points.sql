-- plateau schema 4: a sweep's samples name their load point, and the
-- samples of a point's measurement that was interrupted (a crash, a pause)
-- are marked, so that they are never mixed into the point's figures.
--   point    the load point (points.seq) a sweep sample was taken at; NULL
--            outside sweeps, and for sweep samples stored before this
--            migration (which point they belong to was not recorded)
--   aborted  1: the point's measurement this sample belongs to was
--            interrupted and measured again (event point-aborted); kept so
--            that the sequence stays whole, left out of every figure
ALTER TABLE samples ADD COLUMN point INTEGER CHECK (point IS NULL OR point >= 1);
ALTER TABLE samples ADD COLUMN aborted INTEGER NOT NULL DEFAULT 0 CHECK (aborted IN (0, 1));
