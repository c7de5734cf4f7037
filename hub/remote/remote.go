// Package remote carries a person's requests to a root's leader through
// the hub, for someone on another host than the root's controller: the
// relay protocol's own envelopes (instructions and control requests), one
// message each, on the root's instruction stream.
//
// The way is durable at both ends. A request is published with its id as
// the message id, so that a resend within the hub's duplicate window is
// stored once; the leader consumes the stream as a work queue, answers
// each request through the relay's own checks and handler (so a request
// sent both ways is recognised by its id), keeps the answer in the root's
// answer bucket under the request id, and only then acknowledges the
// message. A leader that dies half-way leaves the message to its
// successor, whose handler gives the original answer again; a person who
// lost the answer reads it from the bucket.
package remote

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/relay"
)

// Names of the leader's durable consumer and the message headers.
const (
	consumerName = "leader"
	// ackWait is how long a leader may take over one request before the
	// hub offers it again (to a successor, if this leader died).
	ackWait = 30 * time.Second
	// dupWindow is how long the hub recognises a resent request id.
	dupWindow = 10 * time.Minute
	// answerTTL is how long an answer stays readable after it was given.
	answerTTL = time.Hour
)

// ErrNoLeader says that no leader ever served the root on this hub: its
// instruction stream does not exist (a wrong root id, most likely).
var ErrNoLeader = errors.New("no leader has served this root on the hub")

// ErrUnanswered says the hub holds the request but no leader answered it
// in time. The request is not lost: the leader answers it once it runs,
// and the same id sent again reads that answer.
var ErrUnanswered = errors.New("the hub holds the request, but no leader answered in time")

// Answerer answers one request as the controller's relay server would
// (relay.Server.AnswerRemote).
type Answerer func(ctx context.Context, env relay.Envelope) relay.Envelope

// answerKey is the bucket key of a request id: request ids are printable
// ASCII, bucket keys are not that wide, so the id is hex-encoded.
func answerKey(id string) string { return "id." + hex.EncodeToString([]byte(id)) }

// streamConfig is the instruction stream: a work queue on disk, every
// request removed once its answer is kept.
func streamConfig(names naming.Root) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name: names.InstructionStream(), Subjects: []string{names.InstructionSubject()},
		Storage: jetstream.FileStorage, Retention: jetstream.WorkQueuePolicy,
		Duplicates: dupWindow, MaxMsgSize: int32(relay.DefaultMaxLine),
	}
}

// ensure creates (or finds) the root's instruction stream, answer bucket
// and the leader's consumer.
func ensure(ctx context.Context, js jetstream.JetStream, names naming.Root) (jetstream.Consumer, jetstream.KeyValue, error) {
	st, err := js.CreateOrUpdateStream(ctx, streamConfig(names))
	if err != nil {
		return nil, nil, fmt.Errorf("instruction stream %s: %w", names.InstructionStream(), err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: names.AnswerBucket(), TTL: answerTTL, Storage: jetstream.FileStorage, History: 1,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("answer bucket %s: %w", names.AnswerBucket(), err)
	}
	cons, err := st.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: consumerName, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait,
		MaxAckPending: 1, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("instruction consumer: %w", err)
	}
	return cons, kv, nil
}

// Leader is the root leader's end of the way: the instruction stream's
// consumer and the answer bucket.
type Leader struct {
	cons jetstream.Consumer
	kv   jetstream.KeyValue
}

// Lead creates (or finds) the root's instruction stream, answer bucket
// and the leader's consumer. Only the root's leader may call it; requests
// sent from then on wait on the hub until Serve answers them.
func Lead(ctx context.Context, js jetstream.JetStream, names naming.Root) (*Leader, error) {
	cons, kv, err := ensure(ctx, js, names)
	if err != nil {
		return nil, err
	}
	return &Leader{cons: cons, kv: kv}, nil
}

// Serve answers the root's remote requests, one at a time and in the
// order the hub holds them, until ctx ends. It returns nil when ctx
// ends, or the error that stopped it.
func (l *Leader) Serve(ctx context.Context, answer Answerer) error {
	msgs, err := l.cons.Messages()
	if err != nil {
		return fmt.Errorf("instruction consumer: %w", err)
	}
	stop := context.AfterFunc(ctx, msgs.Stop)
	defer stop()
	defer msgs.Stop()
	for {
		msg, err := msgs.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return nil
			}
			return fmt.Errorf("instruction stream: %w", err)
		}
		serveOne(ctx, l.kv, msg, answer)
	}
}

// serveOne answers msg and keeps the answer before acknowledging it. An
// answer cut short by shutdown is not kept: the message goes back to the
// stream for the next leader.
func serveOne(ctx context.Context, kv jetstream.KeyValue, msg jetstream.Msg, answer Answerer) {
	var env relay.Envelope
	id := msg.Headers().Get(jetstream.MsgIDHeader)
	var ans relay.Envelope
	if err := json.Unmarshal(msg.Data(), &env); err != nil || env.ID != id {
		ans = relay.Envelope{V: relay.Version, Type: relay.TypeError, Re: id}
		_ = ans.SetBody(&relay.Error{Code: relay.CodeMalformed})
	} else {
		ans = answer(ctx, env)
	}
	if ctx.Err() != nil {
		_ = msg.Nak()
		return
	}
	b, err := json.Marshal(ans)
	if err == nil && id != "" {
		_, err = kv.Put(ctx, answerKey(id), b)
	}
	if err != nil {
		_ = msg.NakWithDelay(time.Second)
		return
	}
	_ = msg.DoubleAck(ctx)
}

// Send delivers env (an instruction or control request with its id) to
// the root's leader and returns the leader's answer, an ack or an error
// envelope. Sending the same id again is safe: it returns the original
// answer. When ctx ends first, the error is ErrUnanswered (the hub holds
// the request) or the hub's own.
func Send(ctx context.Context, js jetstream.JetStream, names naming.Root, env relay.Envelope) (relay.Envelope, error) {
	if _, err := js.Stream(ctx, names.InstructionStream()); err != nil {
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return relay.Envelope{}, fmt.Errorf("root %s: %w", names.ID(), ErrNoLeader)
		}
		return relay.Envelope{}, err
	}
	kv, err := js.KeyValue(ctx, names.AnswerBucket())
	if err != nil {
		return relay.Envelope{}, fmt.Errorf("answer bucket %s: %w", names.AnswerBucket(), err)
	}
	// Watch before publishing, so that an answer given at once is seen.
	w, err := kv.Watch(ctx, answerKey(env.ID))
	if err != nil {
		return relay.Envelope{}, fmt.Errorf("answer bucket %s: %w", names.AnswerBucket(), err)
	}
	defer func() { _ = w.Stop() }()
	data, err := json.Marshal(env)
	if err != nil {
		return relay.Envelope{}, err
	}
	if _, err := js.Publish(ctx, names.InstructionSubject(), data, jetstream.WithMsgID(env.ID)); err != nil {
		return relay.Envelope{}, fmt.Errorf("publish to %s: %w", names.InstructionStream(), err)
	}
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return relay.Envelope{}, fmt.Errorf("root %s: %w", names.ID(), ErrUnanswered)
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue // the end of the initial values, or a removal
			}
			var ans relay.Envelope
			if err := json.Unmarshal(e.Value(), &ans); err != nil {
				return relay.Envelope{}, fmt.Errorf("answer to %s: %w", env.ID, err)
			}
			return ans, nil
		case <-ctx.Done():
			return relay.Envelope{}, fmt.Errorf("root %s: %w", names.ID(), ErrUnanswered)
		}
	}
}
