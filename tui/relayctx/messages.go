package relayctx

// Msg is the family of messages the relay context's commands return
// (LoadedMsg, CompactedMsg, SavedMsg, HandoffMsg, EditedMsg). The root hands every
// Msg to Model.Update as one family, so a message type added here reaches
// the context without anyone keeping a list: it only has to implement Msg.
type Msg interface{ relayctxMsg() }

func (LoadedMsg) relayctxMsg()    {}
func (CompactedMsg) relayctxMsg() {}
func (SavedMsg) relayctxMsg()     {}
func (HandoffMsg) relayctxMsg()   {}
func (EditedMsg) relayctxMsg()    {}

var (
	_ Msg = LoadedMsg{}
	_ Msg = CompactedMsg{}
	_ Msg = SavedMsg{}
	_ Msg = HandoffMsg{}
	_ Msg = EditedMsg{}
)
