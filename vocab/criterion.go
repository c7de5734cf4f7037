package vocab

// Criterion is what the acceptance of a step that ended without a review
// checked: ACCEPTANCE_PASSED's payload "criterion", beside the English
// text of its "criteria" list that the Python tool reads.
type Criterion string

// The acceptance criteria.
const (
	// CriterionExitZero: the worker was seen to exit 0.
	CriterionExitZero Criterion = "exit_code_zero"
	// CriterionResultInLog: the step was finished from its log (its exit
	// status died with the controller that started it); what was checked
	// is the result line its log holds.
	CriterionResultInLog Criterion = "result_in_log"
	// CriterionNoChange: the step's worktree held no change to review.
	CriterionNoChange Criterion = "no_change"
)

// CriterionCatalog is the message id prefix of the criteria's labels.
const CriterionCatalog = "vocab.criterion."

// Criteria lists every acceptance criterion.
func Criteria() []Criterion {
	return []Criterion{CriterionExitZero, CriterionResultInLog, CriterionNoChange}
}
