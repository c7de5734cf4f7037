package relay

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Version is the protocol version every envelope carries in "v". There is
// no negotiation: the window and the controller ship in one binary, so a
// mismatch means a controller of another build is still running, and the
// honest answer is bad_version and a closed connection.
const Version = 1

// Type says what an envelope is and which way it travels.
type Type string

// Envelope types sent by clients (requests).
const (
	// TypeHello asks the server for its Hello; the server also sends one,
	// unasked, as the first line of every connection.
	TypeHello Type = "hello"
	// TypeInstruction carries an Instruction the person typed; the answer
	// is an ack.
	TypeInstruction Type = "instruction"
	// TypeControl carries a Control request (cancel, retry, status) for
	// the controller to decide; the answer is an ack.
	TypeControl Type = "control"
	// TypeObserve subscribes the connection to notices; the answer is a
	// reply carrying a Status.
	TypeObserve Type = "observe"
	// TypePing asks for a pong, to measure the round trip.
	TypePing Type = "ping"
	// TypeOperate carries an Operation: a ledger command (`daokit
	// takeover`, `handoff --create/--apply`) that the CLI asks the
	// controller holding the root to carry out; the answer is an
	// outcome. A connection that observes (a window's) may not send it.
	TypeOperate Type = "operate"
)

// Envelope types sent by the server.
const (
	// TypeAck answers an instruction or a control request with an Ack.
	TypeAck Type = "ack"
	// TypeReply answers an observe request with a Status.
	TypeReply Type = "reply"
	// TypeError answers a request that failed, with an Error body. When
	// "re" is empty the error concerns the connection, which then closes.
	TypeError Type = "error"
	// TypeNotice is pushed by the server, unasked, with a Notice body.
	TypeNotice Type = "notice"
	// TypePong answers a ping.
	TypePong Type = "pong"
	// TypeOutcome answers an operate request with an Outcome.
	TypeOutcome Type = "outcome"
)

// Envelope is one line of the protocol, in both directions. Requests carry
// a client-chosen ID and the Action they perform; answers carry Re, the ID
// of the request they answer; notices carry neither.
type Envelope struct {
	V      int             `json:"v"`
	ID     string          `json:"id,omitempty"`
	Type   Type            `json:"type"`
	Re     string          `json:"re,omitempty"`
	Action string          `json:"action,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
}

// SetBody encodes v as the envelope's body.
func (e *Envelope) SetBody(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("relay: encode %s body: %w", e.Type, err)
	}
	e.Body = b
	return nil
}

// DecodeBody decodes the envelope's body into v. An absent body leaves v
// untouched, so that a body-less request means "all defaults". Unknown
// fields are ignored: a newer peer may add fields within one version.
func (e Envelope) DecodeBody(v any) error {
	if len(e.Body) == 0 || bytes.Equal(e.Body, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(e.Body, v); err != nil {
		return fmt.Errorf("relay: decode %s body: %w", e.Type, err)
	}
	return nil
}

// encodeLine renders e as one protocol line, newline included.
func encodeLine(e Envelope) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("relay: encode envelope: %w", err)
	}
	return append(b, '\n'), nil
}

// answer builds the server's answer of type t to the request id re.
func answer(t Type, re string, body any) Envelope {
	e := Envelope{V: Version, Type: t, Re: re}
	if body != nil {
		// The bodies the server builds are plain structs of strings and
		// numbers; Marshal cannot fail on them.
		e.Body, _ = json.Marshal(body)
	}
	return e
}

// decodeEnvelope parses one line. A line that is not an envelope of this
// version is an *Error (malformed or bad_version) together with whatever
// request id could be read from it, so that the error reply can still name
// the request.
func decodeEnvelope(line []byte) (Envelope, string, *Error) {
	var e Envelope
	if err := json.Unmarshal(line, &e); err != nil {
		p := probeEnvelope(line)
		if p.object && !p.sameVersion {
			return e, p.id, &Error{Code: CodeBadVersion, Detail: p.version}
		}
		return e, p.id, &Error{Code: CodeMalformed}
	}
	if e.V != Version {
		return e, e.ID, &Error{Code: CodeBadVersion, Detail: fmt.Sprint(e.V)}
	}
	return e, e.ID, nil
}

// probe is what can be read from a line that is not a valid envelope.
type probe struct {
	object      bool   // the line is a JSON object
	sameVersion bool   // its "v" is Version
	version     string // its "v" as written, for the error detail
	id          string // its "id", if that is a string
}

// probeEnvelope reads "v" and "id" from a line that failed to decode as an
// envelope: an envelope of another version may use other field types, and
// it deserves bad_version rather than malformed.
func probeEnvelope(line []byte) probe {
	var raw map[string]json.RawMessage
	if json.Unmarshal(line, &raw) != nil {
		return probe{}
	}
	p := probe{object: true, version: string(raw["v"])}
	_ = json.Unmarshal(raw["id"], &p.id)
	var n int
	p.sameVersion = json.Unmarshal(raw["v"], &n) == nil && n == Version
	return p
}
