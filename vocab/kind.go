package vocab

import (
	"slices"

	"github.com/daokit/daokit/i18n"
)

// Kind is one vocabulary: its name, the catalog prefix of its labels and
// its values, for the tests that check every label exists and for the
// window, which renders every label once per language.
type Kind struct {
	// Name is the vocabulary's name ("reason", "op", …).
	Name string
	// Catalog is the message id prefix: a value's label is Catalog+value.
	Catalog string
	// Values lists every value, as stored.
	Values []string
}

// Catalog prefixes of the vocabularies.
const (
	ReasonCatalog     = "vocab.reason."
	StateCatalog      = "vocab.state."
	StatusCatalog     = "vocab.status."
	HealthCatalog     = "vocab.health."
	NextCatalog       = "vocab.next."
	OpCatalog         = "vocab.op."
	ControllerCatalog = "vocab.controller."
	ResultCatalog     = "relay.error."
)

// Kinds returns every vocabulary with its values.
func Kinds() []Kind {
	return []Kind{
		{"reason", ReasonCatalog, strs(Reasons())},
		{"state", StateCatalog, strs(RunStates())},
		{"status", StatusCatalog, strs(Statuses())},
		{"health", HealthCatalog, strs(Healths())},
		{"next", NextCatalog, strs(Nexts())},
		{"op", OpCatalog, strs(Ops())},
		{"controller", ControllerCatalog, strs(ControllerStates())},
		{"result", ResultCatalog, strs(Results())},
		{"step", StepCatalog, strs(StepStates())},
		{"lease", LeaseCatalog, strs(LeaseStatuses())},
		{"event", EventCatalog, strs(EventTypes())},
		{"severity", SeverityCatalog, strs(Severities())},
		{"criterion", CriterionCatalog, strs(Criteria())},
	}
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// label returns the label of v under catalog when v is one of known, else
// v itself: a value written by a newer daokit or another tool shows as it
// is stored rather than as a message id.
func label[T ~string](loc *i18n.Localizer, catalog string, known []T, v T) string {
	if !slices.Contains(known, v) {
		return string(v)
	}
	return loc.T(catalog + string(v))
}
