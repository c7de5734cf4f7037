package fakemodel

import (
	"fmt"
	"net/http"
	"strconv"
)

// anthropicErrorTypes are the error types the Messages API sends per status.
var anthropicErrorTypes = map[int]string{
	400: "invalid_request_error",
	401: "authentication_error",
	403: "permission_error",
	404: "not_found_error",
	413: "request_too_large",
	429: "rate_limit_error",
	500: "api_error",
	529: "overloaded_error",
}

// anthropicErrorMessages are realistic texts for those errors.
var anthropicErrorMessages = map[int]string{
	401: "invalid x-api-key",
	403: "Your API key does not have permission to use the specified resource.",
	429: "Number of request tokens has exceeded your per-minute rate limit",
	500: "Internal server error",
	529: "Overloaded",
}

// countTokens answers POST /v1/messages/count_tokens with a size guess.
func (s *Server) countTokens(w http.ResponseWriter, rec Request) {
	rec.Status = http.StatusOK
	s.record(rec)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"input_tokens":%d}`, 1+len(rec.Body)/4)
}

// messages answers POST /v1/messages: the scripted turn for a request
// with tools, a harmless text for a side request without them.
func (s *Server) messages(w http.ResponseWriter, r *http.Request, rec Request) {
	c, err := parseAnthropic(rec.Body)
	if err != nil {
		rec.Side, rec.Status = true, http.StatusBadRequest
		s.record(rec)
		s.anthropicError(w, APIError{Status: 400, Message: errRequest.Error() + ": " + err.Error()})
		return
	}
	var turn Turn
	fail, held := false, false
	if c.Tools == 0 {
		rec.Side, rec.UserText, rec.Answers = true, c.UserText, c.Answers
		turn = Turn{Text: "Work session", Usage: Usage{Input: 50, Output: 5}}
	} else {
		turn, fail, held = s.pick(&rec, c)
	}
	if !s.hold(r, held) {
		rec.Status = StatusClientGone
		s.record(rec)
		return
	}
	if fail {
		rec.Status = turn.Error.Status
		s.record(rec)
		s.anthropicError(w, *turn.Error)
		return
	}
	rec.Status = http.StatusOK
	s.record(rec)
	msg := s.anthropicMessage(c.Model, turn)
	w.Header().Set("request-id", fmt.Sprintf("req_fake%06d", s.nextID()))
	if !c.Stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(mustJSON(msg.final()))
		return
	}
	msg.stream(w, turn.StreamError)
}

// anthropicErrorText is the error type and message the Messages API
// sends for e.
func anthropicErrorText(e APIError) (typ, text string) {
	typ, text = e.Type, e.Message
	if typ == "" {
		typ = anthropicErrorTypes[e.Status]
		if typ == "" {
			typ = "api_error"
		}
	}
	if text == "" {
		text = anthropicErrorMessages[e.Status]
		if text == "" {
			text = http.StatusText(e.Status)
		}
	}
	return typ, text
}

// anthropicError writes e as the Messages API does.
func (s *Server) anthropicError(w http.ResponseWriter, e APIError) {
	typ, text := anthropicErrorText(e)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("request-id", fmt.Sprintf("req_fake%06d", s.nextID()))
	if e.RetryAfter > 0 {
		h.Set("retry-after", strconv.Itoa(e.RetryAfter))
	}
	h.Set("x-should-retry", strconv.FormatBool(e.Status == 429 || e.Status >= 500))
	w.WriteHeader(e.Status)
	_, _ = w.Write(mustJSON(map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": text},
		"request_id": h.Get("request-id"),
	}))
}

// anthropicMsg is one scripted answer in the Messages API's shape.
type anthropicMsg struct {
	id, model, stop string
	blocks          []map[string]any
	usage           Usage
}

// anthropicMessage builds the answer for turn.
func (s *Server) anthropicMessage(model string, turn Turn) anthropicMsg {
	m := anthropicMsg{id: fmt.Sprintf("msg_fake%06d", s.nextID()), model: model, usage: turn.Usage.withDefaults(), stop: "end_turn"}
	if turn.Text != "" || len(turn.Tools) == 0 {
		m.blocks = append(m.blocks, map[string]any{"type": "text", "text": turn.Text})
	}
	for _, t := range turn.Tools {
		m.blocks = append(m.blocks, map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_fake%06d", s.nextID()), "name": t.Name, "input": t.Input,
		})
	}
	if len(turn.Tools) > 0 {
		m.stop = "tool_use"
	}
	if turn.StopReason != "" {
		m.stop = turn.StopReason
	}
	return m
}

func (m anthropicMsg) usageJSON() map[string]any {
	return map[string]any{
		"input_tokens":                m.usage.Input,
		"cache_creation_input_tokens": m.usage.CacheCreation,
		"cache_read_input_tokens":     m.usage.CacheRead,
		"output_tokens":               m.usage.Output,
		"service_tier":                "standard",
	}
}

// final is the whole message of a non-streaming answer.
func (m anthropicMsg) final() map[string]any {
	return map[string]any{
		"id": m.id, "type": "message", "role": "assistant", "model": m.model,
		"content": m.blocks, "stop_reason": m.stop, "stop_sequence": nil, "usage": m.usageJSON(),
	}
}

// stream writes the answer as the Messages API's server-sent events.
func (m anthropicMsg) stream(w http.ResponseWriter, failure *APIError) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	start := m.usageJSON()
	start["output_tokens"] = 1
	ev := sse{w: w}
	ev.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": m.id, "type": "message", "role": "assistant", "model": m.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": start,
	}})
	ev.send("ping", map[string]any{"type": "ping"})
	if failure != nil {
		typ, text := anthropicErrorText(*failure)
		ev.send("error", map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": text}})
		return
	}
	for i, b := range m.blocks {
		switch b["type"] {
		case "text":
			ev.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range chunks(b["text"].(string), 40) {
				ev.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			ev.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			for _, part := range chunks(string(mustJSON(b["input"])), 64) {
				ev.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		ev.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": m.stop, "stop_sequence": nil}, "usage": m.usageJSON()})
	ev.send("message_stop", map[string]any{"type": "message_stop"})
}

// chunks splits s into pieces of at most n bytes on rune boundaries; an
// empty s is one empty piece, so a text block still gets a delta.
func chunks(s string, n int) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	for len(s) > 0 {
		cut := min(n, len(s))
		for cut < len(s) && cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		if cut == 0 {
			cut = len(s)
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}
