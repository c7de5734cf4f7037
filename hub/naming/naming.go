// Package naming is how one hub serves many roots: every subject, stream
// and key-value bucket of a root carries the root's id, so that a root's
// traffic, its permissions and its backup can each be scoped to it alone
// (`daokit.<root>.>` and the streams `DAOKIT_<root>_*`). It has no
// dependencies, so that a client-only build (an agent host, a window)
// names things exactly as the hub and the leader do.
//
// For a root id r (lowercase letters, digits, '-' and '_'; see ValidRootID):
//
//	what                        stream / bucket          subjects
//	ledger events (leader)      DAOKIT_r_LEDGER          daokit.r.ledger
//	instructions to the leader  DAOKIT_r_INSTR           daokit.r.instr
//	the leader's answers (KV)   DAOKIT_r_ANSWERS         $KV.DAOKIT_r_ANSWERS.>
//	steps offered to agents     DAOKIT_r_STEPS           daokit.r.steps.<lane>
//	results, output, heartbeats DAOKIT_r_RESULTS         daokit.r.results.<step>
//	who holds a step (no stream) -                       daokit.r.live.<step>
//	the outbox                  DAOKIT_r_OUTBOX          daokit.r.outbox.>
//	the leader's lease (KV)     DAOKIT_r_LEASE           $KV.DAOKIT_r_LEASE.>
//	the root's documents (KV)   DAOKIT_r_DOCS            $KV.DAOKIT_r_DOCS.>
//	bundles and patches (obj)   DAOKIT_r_BUNDLES         $O.DAOKIT_r_BUNDLES.>
//
// Root ids are lowercase and the kinds uppercase, so no root's names can
// collide with another's, even on a file system that ignores case (each
// stream is a directory of the hub's store).
package naming

import "fmt"

// Prefix is the first token of every daokit subject and, uppercased, of
// every stream, so that the hub's other users (if any) stay apart.
const Prefix = "daokit"

// maxRootID keeps stream names (prefix, id, kind) well inside
// JetStream's limit and a file name's.
const maxRootID = 64

// Root names the subjects, streams and buckets of one root.
type Root struct{ id string }

// ForRoot returns the names of root id, or an error if id cannot be one
// (see ValidRootID).
func ForRoot(id string) (Root, error) {
	if err := ValidRootID(id); err != nil {
		return Root{}, err
	}
	return Root{id: id}, nil
}

// ValidRootID accepts 1 to 64 lowercase ASCII letters, digits, '-' and
// '_', starting with a letter or digit: a single subject token, a valid
// stream and bucket name, and a directory name on any file system.
func ValidRootID(id string) error {
	if id == "" || len(id) > maxRootID {
		return fmt.Errorf("root id %q: want 1 to %d characters", id, maxRootID)
	}
	if !token(id) {
		return fmt.Errorf("root id %q: want lowercase letters, digits, '-' and '_', starting with a letter or digit", id)
	}
	return nil
}

// ValidToken is ValidRootID's rule for the other names that become one
// subject token: lanes and step ids.
func ValidToken(s string) error {
	if s == "" || len(s) > maxRootID || !token(s) {
		return fmt.Errorf("%q: want 1 to %d lowercase letters, digits, '-' and '_', starting with a letter or digit", s, maxRootID)
	}
	return nil
}

func token(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// ID is the root's id.
func (r Root) ID() string { return r.id }

// All is the wildcard over every subject of the root: what a credential
// scoped to this root may publish and subscribe to.
func (r Root) All() string { return Prefix + "." + r.id + ".>" }

// StreamPrefix begins the name of every stream and bucket of the root
// ("DAOKIT_r_"), for permissions on the JetStream API of its streams.
func (r Root) StreamPrefix() string { return "DAOKIT_" + r.id + "_" }

// LedgerStream holds the leader's ledger events, appended with an
// expected last sequence (the fence).
func (r Root) LedgerStream() string { return r.StreamPrefix() + "LEDGER" }

// LedgerSubject is the one subject of LedgerStream.
func (r Root) LedgerSubject() string { return r.subject("ledger") }

// InstructionStream holds instructions people send to the root's leader.
func (r Root) InstructionStream() string { return r.StreamPrefix() + "INSTR" }

// InstructionSubject is the one subject of InstructionStream.
func (r Root) InstructionSubject() string { return r.subject("instr") }

// AnswerBucket is the key-value bucket of the leader's answers to the
// requests of InstructionStream, keyed by request id, so that a person
// who lost the answer (a dropped link, a resend) reads it again.
func (r Root) AnswerBucket() string { return r.StreamPrefix() + "ANSWERS" }

// StepStream is the work queue agents pull steps from, one subject per
// lane.
func (r Root) StepStream() string { return r.StreamPrefix() + "STEPS" }

// StepSubject is the subject of lane's steps; lane must pass ValidToken.
func (r Root) StepSubject(lane string) string { return r.subject("steps." + lane) }

// StepSubjects is the wildcard over every lane of StepStream.
func (r Root) StepSubjects() string { return r.subject("steps.*") }

// ResultStream holds what agents send back: results, output, heartbeats.
func (r Root) ResultStream() string { return r.StreamPrefix() + "RESULTS" }

// ResultSubject is the subject of step's results; step must pass
// ValidToken.
func (r Root) ResultSubject(step string) string { return r.subject("results." + step) }

// ResultSubjects is the wildcard over every step of ResultStream.
func (r Root) ResultSubjects() string { return r.subject("results.*") }

// LiveSubject is where the agents of a step ask and say who holds it
// (hub/steps: an agent handed a step again waits while the agent of an
// earlier delivery still runs it). No stream captures it: the question
// is about now, and costs the hub no disk write.
func (r Root) LiveSubject(step string) string { return r.subject("live." + step) }

// LiveSubjects is the wildcard over every step's LiveSubject.
func (r Root) LiveSubjects() string { return r.subject("live.*") }

// OutboxStream holds the root's outbox (operations, events, trigger
// keys, the cursor), written in atomic batches.
func (r Root) OutboxStream() string { return r.StreamPrefix() + "OUTBOX" }

// OutboxSubjects is the wildcard over OutboxStream's subjects.
func (r Root) OutboxSubjects() string { return r.subject("outbox.>") }

// LeaseBucket is the key-value bucket of the root's leader lease.
func (r Root) LeaseBucket() string { return r.StreamPrefix() + "LEASE" }

// LeaseKey is the one key of LeaseBucket: the leader's lease.
const LeaseKey = "leader"

// DocumentBucket is the key-value bucket of the root's documents
// (pipeline_state.json, heartbeat_status.json, process_leases.json, …),
// one key per file name, that the leader publishes so that another host
// can rebuild the root (hub/mirror).
func (r Root) DocumentBucket() string { return r.StreamPrefix() + "DOCS" }

// BundleBucket is the object store of the root's git bundles and the
// agents' patches (its stream is OBJ_ and this name, its subjects
// $O.<this name>.>).
func (r Root) BundleBucket() string { return r.StreamPrefix() + "BUNDLES" }

func (r Root) subject(rest string) string { return Prefix + "." + r.id + "." + rest }
