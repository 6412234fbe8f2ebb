package adsim

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"platform/modules/ads/adsapi"
)

var (
	apiPath     = regexp.MustCompile(`^/` + adsapi.Version + `/customers/(\d+)/(googleAds:search|campaigns:mutate|adGroups:mutate)$`)
	fromClause  = regexp.MustCompile(`\bFROM (\w+)`)
	sinceClause = regexp.MustCompile(`\.last_modified_time >= '([^']+)'`)
	nameClause  = regexp.MustCompile(`\.resource_name = '([^']+)'`)
	dateClause  = regexp.MustCompile(`segments\.date BETWEEN '(\d{4}-\d\d-\d\d)' AND '(\d{4}-\d\d-\d\d)'`)
)

// api serves the versioned API after its checks: the access token, the
// developer token and the throttle.
func (s *Sim) api(w http.ResponseWriter, r *http.Request) {
	m := apiPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such method")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.admit(w, r) {
		return
	}
	if m[2] == "googleAds:search" {
		if s.failAfter == 0 {
			s.failAfter = -1
			s.stats.Failed++
			apiError(w, http.StatusServiceUnavailable, "UNAVAILABLE", "The service is currently unavailable.")
			return
		}
		if s.failAfter > 0 {
			s.failAfter--
		}
		s.search(w, m[1], body)
		return
	}
	s.mutate(w, m[1], m[2], body)
}

func (s *Sim) admit(w http.ResponseWriter, r *http.Request) bool {
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch exp, ok := s.access[tok]; {
	case !ok || time.Now().After(exp):
		s.stats.Unauthorized++
		apiError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
	case r.Header.Get("developer-token") != s.DeveloperToken:
		apiError(w, http.StatusForbidden, "PERMISSION_DENIED", "The developer token is not valid.")
	case s.throttle > 0:
		s.throttle--
		s.stats.Throttled++
		w.Header().Set("Retry-After", strconv.Itoa(s.retryAfter))
		apiError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Too many requests. Retry in "+strconv.Itoa(s.retryAfter)+" seconds.")
	default:
		return true
	}
	return false
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	var eb adsapi.ErrorBody
	eb.Error.Code, eb.Error.Status, eb.Error.Message = status, code, msg
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(eb)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// search answers one page of a query: entities by change time or name,
// or daily metrics between two dates.
func (s *Sim) search(w http.ResponseWriter, cid string, body []byte) {
	var req adsapi.SearchRequest
	var from []string
	if json.Unmarshal(body, &req) != nil {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "unreadable request")
		return
	}
	if from = fromClause.FindStringSubmatch(req.Query); from == nil {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "the query has no FROM clause")
		return
	}
	rows, ok := s.rows(cid, from[1], req.Query)
	if !ok {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "unsupported resource or condition in the query")
		return
	}
	offset, ok := readToken(req.PageToken)
	if !ok || offset > len(rows) {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "invalid page token")
		return
	}
	s.stats.Searches++
	end := min(offset+s.PageSize, len(rows))
	res := adsapi.SearchResponse{Results: rows[offset:end]}
	if end < len(rows) {
		res.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(end)))
	}
	writeJSON(w, res)
}

func readToken(t string) (int, bool) {
	if t == "" {
		return 0, true
	}
	raw, err := base64.RawURLEncoding.DecodeString(t)
	n, err2 := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
	return n, err == nil && err2 == nil && n >= 0
}

var entityKinds = map[string]string{"campaign": adsapi.KindCampaign, "ad_group": adsapi.KindAdGroup, "ad_group_criterion": adsapi.KindKeyword}
var metricLevels = map[string]string{"campaign": adsapi.LevelCampaign, "ad_group": adsapi.LevelAdGroup, "keyword_view": adsapi.LevelKeyword}

func (s *Sim) rows(cid, from, q string) ([]adsapi.Row, bool) {
	if d := dateClause.FindStringSubmatch(q); d != nil {
		level, ok := metricLevels[from]
		if !strings.Contains(q, "segments.date,") {
			return s.totals(cid, level, d[1], d[2]), ok
		}
		return s.metricRows(cid, level, d[1], d[2]), ok
	}
	kind, ok := entityKinds[from]
	if !ok {
		return nil, false
	}
	var since time.Time
	if m := sinceClause.FindStringSubmatch(q); m != nil {
		t, err := adsapi.ParseTime(m[1])
		if err != nil {
			return nil, false
		}
		since = t
	}
	name := ""
	if m := nameClause.FindStringSubmatch(q); m != nil {
		name = m[1]
	}
	var out []adsapi.Row
	for _, e := range s.acct(cid).sorted(kind) {
		if e.LastModified.Before(since) || (name != "" && e.ResourceName != name) {
			continue
		}
		out = append(out, entityRow(cid, *e))
	}
	return out, true
}

func entityRow(cid string, e adsapi.Entity) adsapi.Row {
	switch e.Kind {
	case adsapi.KindCampaign:
		return adsapi.Row{Campaign: adsapi.ToWireCampaign(e)}
	case adsapi.KindAdGroup:
		return adsapi.Row{AdGroup: adsapi.ToWireAdGroup(cid, e)}
	}
	return adsapi.Row{AdGroupCriterion: adsapi.ToWireCriterion(cid, e)}
}

func (s *Sim) metricRows(cid, level, from, to string) []adsapi.Row {
	var keys []string
	a := s.acct(cid)
	for k, m := range a.metrics {
		if m.Level == level && m.Date >= from && m.Date <= to {
			keys = append(keys, m.Date+"/"+k)
		}
	}
	sort.Strings(keys)
	out := make([]adsapi.Row, 0, len(keys))
	for _, k := range keys {
		m := a.metrics[k[11:]]
		out = append(out, metricRow(m))
	}
	return out
}

func metricRow(m adsapi.MetricRow) adsapi.Row {
	id := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	r := adsapi.Row{Campaign: &adsapi.WireCampaign{ID: id(m.CampaignID)}, Segments: &adsapi.WireSegments{Date: m.Date},
		Metrics: &adsapi.WireMetrics{Impressions: m.Impressions, Clicks: m.Clicks, Conversions: m.Conversions, CostMicros: m.CostMicros}}
	if m.Level != adsapi.LevelCampaign {
		r.AdGroup = &adsapi.WireAdGroup{ID: id(m.AdGroupID)}
	}
	if m.Level == adsapi.LevelKeyword {
		r.AdGroupCriterion = &adsapi.WireCriterion{CriterionID: id(m.EntityID)}
	}
	return r
}

// totals sums the days of each entity (a query without segments.date).
func (s *Sim) totals(cid, level, from, to string) []adsapi.Row {
	sum := map[string]*adsapi.MetricRow{}
	var ids []string
	for _, m := range s.acct(cid).metrics {
		if m.Level != level || m.Date < from || m.Date > to {
			continue
		}
		t := sum[m.EntityID]
		if t == nil {
			t = &adsapi.MetricRow{Level: level, EntityID: m.EntityID, CampaignID: m.CampaignID, AdGroupID: m.AdGroupID}
			sum[m.EntityID] = t
			ids = append(ids, m.EntityID)
		}
		t.Impressions += m.Impressions
		t.Clicks += m.Clicks
		t.Conversions += m.Conversions
		t.CostMicros += m.CostMicros
	}
	sort.Strings(ids)
	out := make([]adsapi.Row, 0, len(ids))
	for _, id := range ids {
		r := metricRow(*sum[id])
		r.Segments = nil
		out = append(out, r)
	}
	return out
}
