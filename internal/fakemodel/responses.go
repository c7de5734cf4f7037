package fakemodel

import (
	"fmt"
	"net/http"
	"strconv"
)

// openAIErrorCodes are the error type and code the Responses API sends
// per status.
var openAIErrorCodes = map[int][2]string{
	400: {"invalid_request_error", ""},
	401: {"invalid_request_error", "invalid_api_key"},
	403: {"invalid_request_error", "unsupported_country_region_territory"},
	429: {"requests", "rate_limit_exceeded"},
	500: {"server_error", ""},
	503: {"server_error", ""},
}

// openAIErrorMessages are realistic texts for those errors.
var openAIErrorMessages = map[int]string{
	401: "Incorrect API key provided: dummy. You can find your API key at https://platform.openai.com/account/api-keys.",
	429: "Rate limit reached for requests. Please try again in 1s.",
	500: "The server had an error while processing your request. Sorry about that!",
	503: "The engine is currently overloaded, please try again later.",
}

// responses answers POST /v1/responses with the scripted turn.
func (s *Server) responses(w http.ResponseWriter, r *http.Request, rec Request) {
	c, err := parseResponses(rec.Body)
	if err != nil {
		rec.Side, rec.Status = true, http.StatusBadRequest
		s.record(rec)
		s.openAIError(w, APIError{Status: 400, Message: errRequest.Error() + ": " + err.Error()})
		return
	}
	turn, fail, held := s.pick(&rec, c)
	if !s.hold(r, held) {
		rec.Status = StatusClientGone
		s.record(rec)
		return
	}
	if fail {
		rec.Status = turn.Error.Status
		s.record(rec)
		s.openAIError(w, *turn.Error)
		return
	}
	rec.Status = http.StatusOK
	s.record(rec)
	s.responseStream(w, c.Model, turn)
}

// openAIErrorText is the error type, code (nil when none) and message
// the OpenAI API sends for e.
func openAIErrorText(e APIError) (typ string, code any, text string) {
	kind := openAIErrorCodes[e.Status]
	typ, text = e.Type, e.Message
	if kind[1] != "" {
		code = kind[1]
	}
	if typ == "" {
		typ = kind[0]
		if typ == "" {
			typ = "server_error"
		}
	}
	if text == "" {
		text = openAIErrorMessages[e.Status]
		if text == "" {
			text = http.StatusText(e.Status)
		}
	}
	return typ, code, text
}

// openAIError writes e as the OpenAI API does.
func (s *Server) openAIError(w http.ResponseWriter, e APIError) {
	typ, code, text := openAIErrorText(e)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("x-request-id", fmt.Sprintf("req_fake%06d", s.nextID()))
	if e.RetryAfter > 0 {
		h.Set("retry-after", strconv.Itoa(e.RetryAfter))
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(mustJSON(map[string]any{"error": map[string]any{
		"message": text, "type": typ, "param": nil, "code": code,
	}}))
}

// responseStream writes turn as the Responses API's server-sent events.
func (s *Server) responseStream(w http.ResponseWriter, model string, turn Turn) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("x-request-id", fmt.Sprintf("req_fake%06d", s.nextID()))
	w.WriteHeader(http.StatusOK)
	ev := sse{w: w}
	id := fmt.Sprintf("resp_fake%06d", s.nextID())
	ev.send("response.created", map[string]any{"type": "response.created", "sequence_number": 0,
		"response": map[string]any{"id": id, "object": "response", "status": "in_progress", "model": model, "output": []any{}}})
	if f := turn.StreamError; f != nil {
		typ, code, text := openAIErrorText(*f)
		ev.send("response.failed", map[string]any{"type": "response.failed", "response": map[string]any{
			"id": id, "object": "response", "status": "failed", "model": model,
			"error": map[string]any{"type": typ, "code": code, "message": text},
		}})
		return
	}
	index := 0
	if turn.Text != "" || len(turn.Tools) == 0 {
		itemID := fmt.Sprintf("msg_fake%06d", s.nextID())
		ev.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": index,
			"item": map[string]any{"type": "message", "id": itemID, "role": "assistant", "status": "in_progress", "content": []any{}}})
		for _, part := range chunks(turn.Text, 40) {
			ev.send("response.output_text.delta", map[string]any{"type": "response.output_text.delta",
				"item_id": itemID, "output_index": index, "content_index": 0, "delta": part})
		}
		ev.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": index,
			"item": map[string]any{"type": "message", "id": itemID, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}})
		index++
	}
	for _, t := range turn.Tools {
		n := s.nextID()
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake%06d", n),
			"call_id": fmt.Sprintf("call_fake%06d", n), "name": t.Name, "arguments": "", "status": "in_progress"}
		field, value := "arguments", t.arguments()
		if t.Freeform != "" {
			delete(item, "arguments")
			item["type"], item["id"], item["input"] = "custom_tool_call", fmt.Sprintf("ctc_fake%06d", n), ""
			field, value = "input", t.Freeform
		}
		ev.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": index, "item": item})
		done := map[string]any{}
		for k, v := range item {
			done[k] = v
		}
		done[field], done["status"] = value, "completed"
		ev.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": index, "item": done})
		index++
	}
	u := turn.Usage.withDefaults()
	input := u.Input + u.CacheRead + u.CacheCreation
	ev.send("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "object": "response", "status": "completed", "model": model,
		"usage": map[string]any{
			"input_tokens":          input,
			"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
			"output_tokens":         u.Output,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens":          input + u.Output,
		},
	}})
}
