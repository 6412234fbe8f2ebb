package translatetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// DeepL's limits of one request.
const (
	maxTexts = 50
	maxBody  = 128 << 10
)

// targetCode is the shape of a DeepL target code; DeepL ignores its case.
var targetCode = regexp.MustCompile(`(?i)^[A-Z]{2,3}(-[A-Z0-9]{2,4})?$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v2/translate" {
		answer(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
		return
	}
	req, status, msg := s.parse(r)
	if status == 0 {
		status, msg = s.fail(w, r)
	}
	if status != 0 {
		answer(w, status, msg)
		return
	}
	writeJSON(w, http.StatusOK, translations(req))
}

// parse reads and records the request; a status when it is refused.
func (s *Server) parse(r *http.Request) (Request, int, string) {
	req := Request{Auth: r.Header.Get("Authorization")}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	s.record(req)
	switch {
	case req.Auth != "DeepL-Auth-Key "+s.Key:
		return req, http.StatusForbidden, "Authorization failed. Please supply a valid auth_key parameter."
	case len(body) > maxBody:
		return req, http.StatusRequestEntityTooLarge, "Request Entity Too Large"
	case !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
		return req, http.StatusBadRequest, "Bad request. Reason: Content-Type is not application/json"
	case err != nil:
		return req, http.StatusBadRequest, "Bad request. Reason: " + err.Error()
	}
	if reason := badRequest(req); reason != "" {
		return req, http.StatusBadRequest, "Bad request. Reason: " + reason
	}
	return req, 0, ""
}

// badRequest is why DeepL would refuse req's shape ("" when it is fine).
func badRequest(req Request) string {
	reason := ""
	switch {
	case len(req.Text) == 0:
		reason = "Parameter 'text' not specified."
	case len(req.Text) > maxTexts:
		reason = fmt.Sprintf("Too many texts (%d, at most %d).", len(req.Text), maxTexts)
	case !targetCode.MatchString(req.TargetLang):
		reason = fmt.Sprintf("Value for 'target_lang' not supported: %q.", req.TargetLang)
	case req.TagHandling != "" && req.TagHandling != "html" && req.TagHandling != "xml":
		reason = fmt.Sprintf("Value for 'tag_handling' not supported: %q.", req.TagHandling)
	}
	return reason
}

// fail answers a failure ordered by Fail: its status, or 0 for none.
func (s *Server) fail(w http.ResponseWriter, r *http.Request) (int, string) {
	status, retryAfter := s.nextFailure()
	switch {
	case status == Hang:
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		return http.StatusServiceUnavailable, "hung up"
	case status == http.StatusTooManyRequests || status >= 500:
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
	}
	return status, http.StatusText(status)
}

func translations(req Request) map[string]any {
	prefix := strings.ToLower(req.TargetLang) + ":"
	detected := req.SourceLang
	if detected == "" {
		detected = "EN"
	}
	out := make([]map[string]string, len(req.Text))
	for i, t := range req.Text {
		fn := func(w string) string { return prefix + w }
		out[i] = map[string]string{"detected_source_language": detected, "text": apply(t, req, fn)}
	}
	return map[string]any{"translations": out}
}

// apply translates t as DeepL reads it: markup only with tag_handling.
func apply(t string, req Request, fn func(string) string) string {
	if req.TagHandling == "" {
		return words(t, fn)
	}
	return markup(t, req.IgnoreTags, fn)
}

func answer(w http.ResponseWriter, status int, msg string) {
	if msg == "" {
		msg = "status " + strconv.Itoa(status)
	}
	writeJSON(w, status, map[string]string{"message": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
