package controller

import (
	"errors"
	"fmt"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

// What the controller answers a request it refuses: the codes, and the
// checks and mappings that choose one.

// Error codes the controller returns to clients, beyond the relay's own.
const (
	codeNoRun       = relay.Code(vocab.ResultNoRun)
	codeNotFailed   = relay.Code(vocab.ResultNotFailed)
	codeNotRunning  = relay.Code(vocab.ResultNotRunning)
	codeNotWaiting  = relay.Code(vocab.ResultNotWaiting)
	codeEmpty       = relay.Code(vocab.ResultEmpty)
	codeLedgerWrite = relay.Code(vocab.ResultLedgerWrite)
	codeIndexRead   = relay.Code(vocab.ResultIndexRead)
	codeDiskFull    = relay.Code(vocab.ResultDiskFull)
	// codeInvalidID: a task, run or step id does not match
	// ledger.IDPattern (Detail: which id and its value). Ids become
	// folder names under artifacts/, so they are refused, never cleaned.
	codeInvalidID = relay.Code(vocab.ResultInvalidID)
	// codeNoReview: /accept or /reject while no change waits for review.
	codeNoReview = relay.Code(vocab.ResultNotInReview)
)

// checkIDs refuses ids a client chose that do not match ledger.IDPattern;
// empty means "not given" and passes. kinds and ids alternate.
func checkIDs(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if id := strings.TrimSpace(pairs[i+1]); id != "" && !ledger.ValidID(id) {
			return &relay.Error{Code: codeInvalidID, Detail: fmt.Sprintf("%s %q", pairs[i], id)}
		}
	}
	return nil
}

// ackWriteError is what a client hears when its request could not be
// recorded: the disk is full (and nothing was recorded), or another
// write error, or a request too large to record.
func ackWriteError(err error) error {
	if errors.Is(err, errDiskFull) {
		return &relay.Error{Code: codeDiskFull, Detail: ledger.EventsFile}
	}
	if errors.Is(err, ledger.ErrTooLarge) {
		// Its ledger line would pass the store's cap: refused, and so
		// never acknowledged, rather than written where recovery could
		// not read it back.
		return &relay.Error{Code: relay.CodeTooLarge, Detail: fmt.Sprint(ledger.MaxLineBytes)}
	}
	return &relay.Error{Code: codeLedgerWrite, Detail: ledger.EventsFile}
}
