// Package outbox is the team's single source of truth for collaboration
// (seed 003): issues, comments, labels (to:<role>, state:*, decision:*),
// an assignee, and an append-only event log whose ids only grow.
//
// Everything that changes the outbox goes through Backend.Apply as one
// Change, which the backend commits as one transaction: the operations,
// the events they append, the reader's Trigger key (unique, so a trigger
// is handled once even when two processes race or one crashes and
// retries) and the reader's cursor advance. A Lead that crashes therefore
// either did all of an effect and moved its cursor past the event, or
// did nothing and sees the event again. mergexo and gabrielkoerich's
// orchestrator shipped duplicate comments when these were separate steps.
//
// SQLite (modernc.org/sqlite, pure Go, WAL) is the V1 backend; the
// interface is small so that a GitHub/GitLab backend or a distributed
// engine can follow without touching the Leads. Mailbox renders and
// parses the fixed comment template (Trigger, ReadUpTo, IssueRef, Changes,
// Tests, BlockedBy, DependsOn): readable by people, parsed by Leads.
//
// outbox imports nothing else of daokit's.
package outbox
