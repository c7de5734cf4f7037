package transcript

// Stream names the output stream a line came from.
type Stream string

// The two output streams of a worker.
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// Status says how a line was understood.
type Status uint8

// The statuses of a line. Every line counts as activity whatever its
// status; Unknown and Malformed lines are counted, shown as plain text and
// never fatal.
const (
	// StatusPlain is ordinary output.
	StatusPlain Status = iota
	// StatusEvent is a line understood as one or more Events.
	StatusEvent
	// StatusUnknown is well-formed structured output of a type this
	// version does not know (a newer worker, say).
	StatusUnknown
	// StatusMalformed is a line that should have been structured and is
	// not: invalid JSON after the protocol prefix, a non-JSON line in an
	// agent CLI's JSON stream, or a required field missing.
	StatusMalformed
	// StatusGap is not a line: it marks lines dropped at the end of the
	// output (see Record.Dropped).
	StatusGap
)

var statusNames = [...]string{"plain", "event", "unknown", "malformed", "gap"}

// String returns the status's stable name.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "invalid"
}

// Decoded is what a Decoder made of one line.
type Decoded struct {
	Status Status
	Events []Event
}

// A Decoder turns a worker's output lines into Events. Decoders may keep
// state between lines (an agent's last message, its session id) and are
// used by one goroutine at a time. Decode must not keep line.
type Decoder interface {
	Decode(s Stream, line []byte) Decoded
}

// NewDecoder returns the decoder for a worker kind as named in
// daokit.toml: "claude" and "codex" read those CLIs' JSON event streams;
// any other kind ("sim", "command") reads the daokit worker protocol.
func NewDecoder(kind string) Decoder {
	switch kind {
	case "claude":
		return &answerWatch{Decoder: &claudeDecoder{}}
	case "codex":
		return &answerWatch{Decoder: &codexDecoder{}}
	}
	return ProtocolDecoder{}
}

// plain is the Decoded of an ordinary line.
var plain = Decoded{Status: StatusPlain}

func understood(events ...Event) Decoded { return Decoded{Status: StatusEvent, Events: events} }

var (
	unknownLine   = Decoded{Status: StatusUnknown}
	malformedLine = Decoded{Status: StatusMalformed}
)
