package live

// LinkMsg is the family of messages about the controller process (probe,
// start, exit) that package link follows. The root hands every LinkMsg to
// the link as one family.
type LinkMsg interface{ linkMsg() }

func (ProbedMsg) linkMsg()  {}
func (StartedMsg) linkMsg() {}
func (ExitedMsg) linkMsg()  {}

// AnswerMsg is the family of outcomes of a request the window forwarded
// (an instruction or a control request). The root records every answer
// in the relay context and gives it to the panes.
type AnswerMsg interface {
	// Answer returns the controller's acknowledgement, or why the
	// request was not delivered.
	Answer() (Ack, error)
}

// Answer implements AnswerMsg.
func (m ForwardedMsg) Answer() (Ack, error) { return m.Ack, m.Err }

// Answer implements AnswerMsg.
func (m ControlledMsg) Answer() (Ack, error) { return m.Ack, m.Err }

var (
	_ LinkMsg   = ProbedMsg{}
	_ LinkMsg   = StartedMsg{}
	_ LinkMsg   = ExitedMsg{}
	_ AnswerMsg = ForwardedMsg{}
	_ AnswerMsg = ControlledMsg{}
)
