package compact

// Fact names one of the five facts the relay must be able to answer
// after any compaction (seed 002 § 3.1): its member in relay_context.
type Fact string

// The five facts, in the keep set's order.
const (
	FactGoal              Fact = "goal"
	FactConstraints       Fact = "constraints"
	FactLatestInstruction Fact = "latest_instruction"
	FactBlockers          Fact = "current_blockers"
	FactRoute             Fact = "controller_route_summary"
)

// Missing is the seed's self-check: the facts f cannot answer, in the
// keep set's order, nil when it answers all five. A list that is known
// to be empty ([]: no constraints, no blockers) answers; an absent one
// does not. A route answers when any of its fields is known.
func (f Facts) Missing() []Fact {
	var out []Fact
	if f.Goal == "" {
		out = append(out, FactGoal)
	}
	if f.Constraints == nil {
		out = append(out, FactConstraints)
	}
	if f.LatestInstruction == "" {
		out = append(out, FactLatestInstruction)
	}
	if f.CurrentBlockers == nil {
		out = append(out, FactBlockers)
	}
	if f.Route.IsZero() {
		out = append(out, FactRoute)
	}
	return out
}
