package pipelines

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"platform/kernel/auth"
	"platform/kernel/events"
	"platform/kernel/jsonlimit"
	"platform/kernel/notify"
	"platform/kernel/outbound"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/template"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/workflows/contract"
)

// maxHTTPResponse caps the response body an http step reads.
const maxHTTPResponse = 1 << 20

// RunHTTP makes the http step's call through the outbound guard. Any
// answer but 2xx fails the step; 4xx other than 408 and 429 is not retried.
func (a *Activities) RunHTTP(ctx context.Context, in contract.StepInput) (contract.StepOutput, error) {
	start := time.Now()
	sc, err := a.scopeFor(ctx, in)
	if err != nil {
		return contract.StepOutput{}, err
	}
	s := in.Step
	url, recordedURL := sc.renderText(s.URL)
	h, recordedHeaders := sc.render(s.Headers)
	headers, _ := h.(map[string]string)
	body, recordedBody := sc.render(s.Body)
	input := map[string]any{"method": s.Method, "url": recordedURL, "headers": recordedHeaders, "body": recordedBody}
	if a.Outbound == nil {
		return contract.StepOutput{}, stepFailure("refused", "outbound calls are not available in this worker", true, nil)
	}
	req, err := newStepRequest(ctx, s.Method, url, headers, body)
	if err != nil {
		return contract.StepOutput{}, sc.fail("request", true, err, input)
	}
	timeout := time.Duration(s.HTTPTimeoutMs()) * time.Millisecond
	stop := temporalx.Heartbeat(ctx, HTTPHeartbeatEvery)
	defer stop()
	res, err := a.Outbound.Client(timeout).Do(req)
	if err != nil {
		var refused *outbound.RefusedError
		err = outbound.CallFailed(outbound.Dest(url), timeout, err)
		return contract.StepOutput{}, a.failLogged(ctx, in, sc, "http", errors.As(err, &refused), err, input)
	}
	defer res.Body.Close()
	out, err := readStepResponse(res)
	if err != nil {
		return contract.StepOutput{}, a.failLogged(ctx, in, sc, "http", false, err, input)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		permanent := res.StatusCode < 500 && res.StatusCode != http.StatusRequestTimeout && res.StatusCode != http.StatusTooManyRequests
		msg := fmt.Sprintf("%s %s answered %d", s.Method, recordedURL, res.StatusCode)
		// The answer (a provider's error body) is part of the failure's record.
		return contract.StepOutput{}, contract.StepFailure(contract.StepError{Kind: "http_status", Message: sc.redact.String(msg)}, permanent, nil, nil,
			sc.redact.Value(map[string]any{"request": input, "response": out}))
	}
	return sc.finish(start, input, out, nil)
}

// HTTPHeartbeatEvery is how often an http step heartbeats while its
// request runs: a run's cancellation reaches the activity only through a
// heartbeat, and cancels the request's context.
const HTTPHeartbeatEvery = time.Second

func newStepRequest(ctx context.Context, method, url string, headers map[string]string, body any) (*http.Request, error) {
	var r io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case string:
		r, contentType = strings.NewReader(b), "text/plain; charset=utf-8"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		r, contentType = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("User-Agent", "platform-pipeline/1")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// readStepResponse is the step's output: status, headers and the body,
// decoded when it is JSON.
func readStepResponse(res *http.Response) (map[string]any, error) {
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxHTTPResponse+1))
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	if len(raw) > maxHTTPResponse {
		return nil, fmt.Errorf("the answer is larger than %d bytes", maxHTTPResponse)
	}
	headers := map[string]any{}
	for k := range res.Header {
		headers[strings.ToLower(k)] = res.Header.Get(k)
	}
	body, err := answerBody(raw, res.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"status": res.StatusCode, "headers": headers, "body": body}, nil
}

// answerBody is a JSON answer decoded, and any other (malformed JSON
// included) as text. JSON the platform could not keep in the run record
// (nested deeper than jsonlimit.MaxDepth, a number beyond a float64) fails
// the step, naming where.
func answerBody(raw []byte, contentType string) (any, error) {
	if !strings.Contains(contentType, "json") {
		return string(raw), nil
	}
	v, err := jsonlimit.Decode(raw)
	var refused *jsonlimit.Error
	switch {
	case errors.As(err, &refused):
		return nil, fmt.Errorf("the answer's JSON body is refused: %w", refused)
	case err != nil:
		return string(raw), nil
	}
	return v, nil
}

// RunDB runs the db step through the API's record layer: the customer's
// own declared collections, with their validation, hooks and events.
func (a *Activities) RunDB(ctx context.Context, in contract.StepInput) (contract.StepOutput, error) {
	start := time.Now()
	sc, err := a.scopeFor(ctx, in)
	if err != nil {
		return contract.StepOutput{}, err
	}
	if a.Records == nil {
		return contract.StepOutput{}, stepFailure("db", "records are not available in this worker", true, nil)
	}
	s := in.Step
	id, recordedID := sc.renderText(s.RecordID)
	d, recordedData := sc.render(s.Data)
	f, recordedFilter := sc.render(s.Filter)
	data, _ := d.(map[string]any)
	filter, _ := f.(map[string]any)
	input := map[string]any{"collection": s.Collection, "op": s.Op}
	if id != "" {
		input["recordId"] = recordedID
	}
	if data != nil {
		input["data"] = recordedData
	}
	if filter != nil {
		input["filter"] = recordedFilter
	}
	// Records written by a pipeline name it as their author.
	cust, _ := tenant.Customer(ctx)
	ctx = auth.WithPrincipal(ctx, &auth.Principal{Customer: cust, Subject: in.Pipeline, ClientID: in.Pipeline})
	ctx = events.WithCause(ctx, links(in.Cause))
	out, err := a.dbOp(ctx, s, id, data, filter)
	if err != nil {
		if text, ok := resource.CallerFault(err); ok {
			return contract.StepOutput{}, sc.fail("db", true, errors.New(text), input)
		}
		// A store fault's text names the store's servers.
		err = &outbound.Failure{Cause: "the record store failed", Err: err}
		return contract.StepOutput{}, a.failLogged(ctx, in, sc, "db", false, err, input)
	}
	return sc.finish(start, input, out, nil)
}

func (a *Activities) dbOp(ctx context.Context, s contract.Step, id string, data, filter map[string]any) (any, error) {
	switch s.Op {
	case contract.OpCreate:
		return a.Records.Create(ctx, s.Collection, data)
	case contract.OpUpdate:
		return a.Records.Update(ctx, s.Collection, id, data)
	case contract.OpDelete:
		return a.Records.Delete(ctx, s.Collection, id)
	case contract.OpRead:
		if id != "" {
			return a.Records.Get(ctx, s.Collection, id)
		}
		limit := s.Limit
		if limit == 0 {
			limit = 25
		}
		docs, err := a.Records.Find(ctx, s.Collection, filter, limit)
		if err != nil {
			return nil, err
		}
		list := make([]any, len(docs))
		for i, d := range docs {
			list[i] = d
		}
		return map[string]any{"records": list, "count": len(list)}, nil
	}
	return nil, fmt.Errorf("unknown op %q", s.Op)
}

// RunNotification sends the notification step's message.
func (a *Activities) RunNotification(ctx context.Context, in contract.StepInput) (contract.StepOutput, error) {
	start := time.Now()
	sc, err := a.scopeFor(ctx, in)
	if err != nil {
		return contract.StepOutput{}, err
	}
	s := in.Step
	to, recordedTo := sc.render(s.To)
	subject, recordedSubject := sc.renderText(s.Subject)
	text, recordedText := sc.renderText(s.Template)
	m := notify.Message{Channel: s.Channel, To: recipients(to), Subject: subject, Body: text}
	input := map[string]any{"channel": m.Channel, "to": store.List(recipients(recordedTo)), "subject": recordedSubject, "body": recordedText}
	if a.Notifier == nil {
		return contract.StepOutput{}, stepFailure("notification", "notifications are not configured in this worker", true, nil)
	}
	if err := a.Notifier.Send(ctx, m); err != nil {
		if notify.IsPermanent(err) {
			a.logMail(ctx, m, sc.redact.String(err.Error()))
		}
		return contract.StepOutput{}, a.failLogged(ctx, in, sc, "notification", notify.IsPermanent(err), err, input)
	}
	a.logMail(ctx, m, "")
	return sc.finish(start, input, map[string]any{"sent": true, "channel": m.Channel, "recipients": len(m.To)}, nil)
}

// logMail writes the mail logs of a mail step's recipients who are
// consumers. A failure to write them is logged, never the step's: failing
// it would retry it and send the mail again. Only a permanent send
// failure is logged as failed: a transient one is retried.
func (a *Activities) logMail(ctx context.Context, m notify.Message, failure string) {
	if a.MailLogs == nil || m.Channel != contract.ChannelMail {
		return
	}
	if err := a.MailLogs.LogMail(ctx, m.To, failure); err != nil {
		a.Log.WarnContext(ctx, "notification: mail log not written", "error", err.Error())
	}
}

func recipients(v any) []string {
	switch t := v.(type) {
	case string:
		if t == "" {
			return nil
		}
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, recipients(e)...)
		}
		return out
	case nil:
		return nil
	}
	return []string{template.Text(v)}
}

// links is a causation chain as the event recorder takes it.
func links(chain []contract.Cause) []events.Link {
	out := make([]events.Link, len(chain))
	for i, c := range chain {
		out[i] = events.Link{Run: c.Run, Pipeline: c.Pipeline}
	}
	return out
}
