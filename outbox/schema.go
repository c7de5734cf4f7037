package outbox

// schema creates the outbox tables. AUTOINCREMENT keeps event ids strictly
// increasing even after the newest rows are gone, so a cursor is never
// re-used; the WITHOUT ROWID tables are keyed lookups only.
const schema = `
CREATE TABLE IF NOT EXISTS issues(
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	title TEXT NOT NULL,
	body TEXT NOT NULL,
	author TEXT NOT NULL,
	assignee TEXT NOT NULL DEFAULT '',
	closed INTEGER NOT NULL DEFAULT 0,
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS labels(
	issue INTEGER NOT NULL,
	label TEXT NOT NULL,
	PRIMARY KEY(issue, label)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS labels_by_label ON labels(label, issue);
CREATE TABLE IF NOT EXISTS comments(
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	issue INTEGER NOT NULL,
	author TEXT NOT NULL,
	body TEXT NOT NULL,
	created INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS comments_by_issue ON comments(issue, id);
CREATE TABLE IF NOT EXISTS events(
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	kind TEXT NOT NULL,
	issue INTEGER NOT NULL,
	comment INTEGER NOT NULL DEFAULT 0,
	actor TEXT NOT NULL,
	value TEXT NOT NULL DEFAULT '',
	time INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS cursors(
	reader TEXT PRIMARY KEY,
	event INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS triggers(
	reader TEXT NOT NULL,
	key TEXT NOT NULL,
	event INTEGER NOT NULL,
	PRIMARY KEY(reader, key)) WITHOUT ROWID;
`
