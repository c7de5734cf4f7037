// Package workflow holds daokit's workflow agents: the shapes of Google
// ADK's Go workflow agents (sequential, loop, max iterations, escalate,
// callbacks), small and ours, without the dependency.
//
// An Agent is one worker lane seen from the workflow (the controller's
// step runner implements it); Sequential runs agents in order; SinglePass
// is Sequential(coder, reviewer); Loop repeats its body and asks its Judge
// after each iteration whether to go on (shouldContinue). The Judge is
// never a member of SinglePass: it decides, it does not work.
//
// Callbacks observe a run (agent start and end, text, tool use, iteration
// start and end). They never veto, and a callback that panics, errors or
// blocks never stalls the run: each has its own goroutine behind a
// bounded queue; what does not fit is dropped and counted.
//
// A flow is resumable: before running a step it asks its Memory whether
// the step already finished (Recall), and it records every finished step
// and every judge decision there (Remember) before going on. A flow run
// again on the same Memory therefore skips what finished and resumes the
// first step that did not.
package workflow
