package main

import (
	"encoding/json"
	"io"

	hubsteps "github.com/daokit/daokit/hub/steps"
)

// maxStepBytes bounds the step a relay reads from its stdin (the
// instruction is in it).
const maxStepBytes = 16 << 20

// decodeStep reads the relay's step from stdin.
func decodeStep(a *app, s *hubsteps.Step) error {
	data, err := io.ReadAll(io.LimitReader(a.io.in, maxStepBytes))
	if err != nil {
		return err
	}
	return json.Unmarshal(data, s)
}
