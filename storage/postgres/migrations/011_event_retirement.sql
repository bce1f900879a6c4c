-- A retired event (e.g. a sample market of the offline snapshot, once the live source answered)
-- stays as a row, with its version, so the retirement travels the change feed to every view.
ALTER TABLE events ADD COLUMN IF NOT EXISTS retired BOOLEAN NOT NULL DEFAULT false;
-- Finds the live events of one source (retireSource) without reading the catalog.
CREATE INDEX IF NOT EXISTS events_live_source_idx ON events ((body->>'source')) WHERE NOT retired;
