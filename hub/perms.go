package hub

import (
	"fmt"

	"github.com/daokit/daokit/hub/naming"
	"github.com/nats-io/nats-server/v2/server"
)

// Role is what a per-root key may do on the hub. Every role is scoped to
// one root: its subjects (`daokit.<root>.>`) and the JetStream API of its
// own streams, named one by one (JetStream's API subjects carry the
// stream's name as one token, so `DAOKIT_<root>_*` cannot be a wildcard;
// key-value and object buckets add a `KV_` or `OBJ_` in front of it).
type Role string

// The roles a key is issued for.
const (
	// RoleLeader may do what a root's controller does: campaign for the
	// lease, append to the ledger, publish documents and steps, read
	// results and instructions, answer them, and keep the outbox.
	RoleLeader Role = "leader"
	// RoleAgent may only pull the root's steps and send back their
	// results and patches: not the ledger, not the lease, not the outbox.
	RoleAgent Role = "agent"
	// RoleReader (mirrors, remote windows) may read the ledger and the
	// documents, and send instructions and read their answers.
	RoleReader Role = "reader"
)

// Roles lists every role, for the command's help and its checks.
func Roles() []Role { return []Role{RoleLeader, RoleAgent, RoleReader} }

// ParseRole accepts the name of one of Roles.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles() {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("role %q: want leader, agent or reader", s)
}

// Permissions are what the hub lets a key of role on root publish and
// subscribe to. Anything not listed is refused with a permissions
// violation; the replies of JetStream's API come back on the client's
// own inbox.
func Permissions(r naming.Root, role Role) *server.Permissions {
	p := perms{}
	p.pub("$JS.API.INFO")
	p.sub("_INBOX.>")
	kv := func(bucket string) string { return "KV_" + bucket }
	obj := func(bucket string) string { return "OBJ_" + bucket }
	switch role {
	case RoleLeader:
		p.pub(r.All())
		p.sub(r.All())
		for _, s := range []string{r.LedgerStream(), r.InstructionStream(), r.StepStream(), r.ResultStream(), r.OutboxStream(),
			kv(r.LeaseBucket()), kv(r.DocumentBucket()), kv(r.AnswerBucket()), obj(r.BundleBucket())} {
			p.manage(s)
		}
		for _, b := range []string{r.LeaseBucket(), r.DocumentBucket(), r.AnswerBucket()} {
			p.pub("$KV." + b + ".>")
		}
		p.pub("$O." + r.BundleBucket() + ".>")
	case RoleAgent:
		// Results, output and heartbeats go out; a step's stop request
		// comes in on its result subject.
		p.pub(r.ResultSubjects())
		p.sub(r.ResultSubjects())
		// Who holds a step: asked and answered between agents.
		p.pub(r.LiveSubjects())
		p.sub(r.LiveSubjects())
		for _, s := range []string{r.StepStream(), r.ResultStream()} {
			p.ensure(s)
		}
		// The base commit's bundle comes in, the step's patch goes out
		// (a patch replaced purges its old chunks).
		p.ensure(obj(r.BundleBucket()))
		p.pub("$JS.API.STREAM.PURGE." + obj(r.BundleBucket()))
		p.pub("$O." + r.BundleBucket() + ".>")
	case RoleReader:
		p.read(r.LedgerStream())
		p.read(kv(r.DocumentBucket()))
		// Only a look-up of the instruction stream: it is the leader's
		// work queue, and a reader consuming it would take instructions
		// away from the leader.
		p.pub("$JS.API.STREAM.INFO." + r.InstructionStream())
		p.read(kv(r.AnswerBucket()))
		p.pub(r.InstructionSubject())
	}
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: p.pubs},
		Subscribe: &server.SubjectPermission{Allow: p.subs},
	}
}

// perms collects allowed subjects.
type perms struct{ pubs, subs []string }

func (p *perms) pub(s ...string) { p.pubs = append(p.pubs, s...) }
func (p *perms) sub(s ...string) { p.subs = append(p.subs, s...) }

// read lets the key look a stream up, get its messages (directly or by
// sequence) and consume it: consumers are a reader's cursor, not data.
func (p *perms) read(s string) {
	p.pub("$JS.API.STREAM.INFO."+s, "$JS.API.STREAM.MSG.GET."+s,
		"$JS.API.DIRECT.GET."+s, "$JS.API.DIRECT.GET."+s+".>",
		"$JS.API.CONSUMER.CREATE."+s, "$JS.API.CONSUMER.CREATE."+s+".>",
		"$JS.API.CONSUMER.DURABLE.CREATE."+s+".>",
		"$JS.API.CONSUMER.INFO."+s+".>", "$JS.API.CONSUMER.DELETE."+s+".>",
		"$JS.API.CONSUMER.MSG.NEXT."+s+".>",
		"$JS.API.CONSUMER.LIST."+s, "$JS.API.CONSUMER.NAMES."+s,
		"$JS.ACK."+s+".>", "$JS.FC."+s+".>")
}

// ensure is read plus creating the stream when it is missing (agents
// and relays ensure their streams exist): never deleting or purging it.
func (p *perms) ensure(s string) {
	p.read(s)
	p.pub("$JS.API.STREAM.CREATE."+s, "$JS.API.STREAM.UPDATE."+s)
}

// manage is every API call on the stream: the leader owns it.
func (p *perms) manage(s string) {
	p.read(s)
	p.pub("$JS.API.STREAM.*."+s, "$JS.API.STREAM.MSG.*."+s, "$JS.API.CONSUMER.*."+s+".>")
}
