package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"platform/kernel/query"
	"platform/kernel/template"
	"platform/workflows/contract"
)

// Problem is one reason a definition is refused; Step names the step.
type Problem struct {
	Field   string // e.g. steps[2].url
	Step    string // the step's id when known
	Message string
	// Line and Column locate a syntax error in an expression.
	Line, Column int
}

func (p *Problem) Error() string { return p.Message }

// CodeError is a syntax error in user code with its position.
type CodeError struct {
	Message      string
	Line, Column int
}

// Env answers what validation cannot know from the definition alone. Each
// method returns "" when the reference is fine, else the reason.
type Env interface {
	// EventPattern checks a trigger's event name or wildcard.
	EventPattern(pattern string) string
	// Trigger checks a reusable trigger id.
	Trigger(ctx context.Context, id string) (string, error)
	// Function checks a custom function id.
	Function(ctx context.Context, id string) (string, error)
	// SubPipelines returns the subPipeline references of a stored pipeline
	// (found=false when there is none with that id).
	SubPipelines(ctx context.Context, id string) (refs []string, found bool, err error)
	// Collection checks that a db step may run op on collection.
	Collection(ctx context.Context, collection, op string) (string, error)
	// Compile checks a transform expression (nil: it compiles).
	Compile(ctx context.Context, language, code string) (*CodeError, error)
	// CronMinInterval is the shortest interval a cron trigger may fire
	// at; 0 means DefaultCronMinInterval.
	CronMinInterval() time.Duration
}

var idRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// settingsOf lists the type-specific settings each step type accepts.
var settingsOf = map[string][]string{
	contract.TypeTrigger:      {"event", "filter", "cron", "timezone", "trigger"},
	contract.TypeCondition:    {"if", "then", "else"},
	contract.TypeTransform:    {"language", "expression"},
	contract.TypeHTTP:         {"method", "url", "headers", "body"},
	contract.TypeDB:           {"collection", "op", "data", "recordId", "filter", "limit"},
	contract.TypeNotification: {"channel", "to", "subject", "template"},
	contract.TypeWait:         {"duration", "until"},
	contract.TypeSubPipeline:  {"pipeline", "input"},
	contract.TypeFunction:     {"function", "input"},
}

var commonSettings = []string{"id", "type", "name", "next", "retry", "onError", "onErrorStep", "timeoutMs"}

// workflowRendered step types have their templates rendered in workflow
// code (their values land in the run's history), so they may not use
// secrets.
var workflowRendered = map[string]bool{contract.TypeCondition: true, contract.TypeWait: true, contract.TypeSubPipeline: true}

// Validate checks a definition; self is the pipeline's own id (for cycles).
// It returns every problem found (nil when the definition is fine) or an
// error when a lookup failed.
func Validate(ctx context.Context, d *contract.Definition, self string, env Env) ([]*Problem, error) {
	v := &validator{ctx: ctx, d: d, self: self, env: env, ids: map[string]int{}}
	return v.run()
}

type validator struct {
	ctx      context.Context
	d        *contract.Definition
	self     string
	env      Env
	ids      map[string]int
	problems []*Problem
	err      error
}

func (v *validator) run() ([]*Problem, error) {
	v.trigger()
	if len(v.d.Steps) == 0 {
		v.add("steps", "", "a pipeline needs at least one step")
	}
	if len(v.d.Steps) > MaxSteps {
		v.add("steps", "", fmt.Sprintf("a pipeline has at most %d steps", MaxSteps))
	}
	for i := range v.d.Steps {
		v.stepID(i)
	}
	for i := range v.d.Steps {
		v.step(i)
	}
	v.cycles()
	return v.problems, v.err
}

func (v *validator) add(field, step, msg string) {
	v.problems = append(v.problems, &Problem{Field: field, Step: step, Message: msg})
}

func (v *validator) addStep(i int, setting, format string, args ...any) {
	s := &v.d.Steps[i]
	field := fmt.Sprintf("steps[%d]", i)
	if setting != "" {
		field += "." + setting
	}
	v.add(field, s.ID, fmt.Sprintf("step %s: ", describe(s.ID, i))+fmt.Sprintf(format, args...))
}

func (v *validator) lookup(why string, err error) string {
	if err != nil && v.err == nil {
		v.err = err
	}
	return why
}

// trigger checks what starts the pipeline: the definition's trigger or a
// trigger step, never both (one source of truth for schedules and event
// subscriptions).
func (v *validator) trigger() {
	if v.d.Trigger != nil {
		v.checkTrigger(v.d.Trigger, definitionTrigger)
	}
	if len(v.d.Steps) > 0 && v.d.Steps[0].Type == contract.TypeTrigger && v.d.Trigger != nil {
		v.add("trigger", v.d.Steps[0].ID, fmt.Sprintf("trigger and the trigger step %s both say what starts the pipeline: keep one of them", describe(v.d.Steps[0].ID, 0)))
	}
}

// triggerSettings names a trigger's settings where they were written: in
// the definition's trigger or in a trigger step.
type triggerSettings struct {
	field  func(setting string) string // the problem's field
	prefix string                      // what messages on one setting start with
	whole  string                      // what a message on the whole trigger starts with
	id     string                      // the setting of a reusable trigger's id
	step   string                      // the step's id, for a trigger step
}

var definitionTrigger = triggerSettings{field: func(s string) string { return "trigger." + s }, prefix: "trigger.", whole: "trigger", id: "id"}

func (v *validator) triggerStep(i int) {
	s := &v.d.Steps[i]
	if i != 0 {
		v.addStep(i, "type", "a trigger step says what starts the pipeline, so it can only be the first step")
		return
	}
	v.checkTrigger(s.AsTrigger(), triggerSettings{
		field:  func(setting string) string { return fmt.Sprintf("steps[%d].%s", i, setting) },
		prefix: fmt.Sprintf("step %s: ", describe(s.ID, i)), whole: fmt.Sprintf("step %s: a trigger step", describe(s.ID, i)),
		id: "trigger", step: s.ID,
	})
}

func (v *validator) checkTrigger(t *contract.Trigger, at triggerSettings) {
	add := func(setting, msg string) {
		field := at.field(setting)
		if setting == "" {
			field = strings.TrimSuffix(at.field(""), ".")
		}
		v.add(field, at.step, msg)
	}
	kinds := 0
	for _, set := range []bool{t.Event != "", t.Cron != "", t.ID != ""} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		add("", fmt.Sprintf("%s takes one of event (with an optional filter), cron (with an optional timezone) or %s (a reusable trigger); leave it out for a manual-only pipeline", at.whole, at.id))
		return
	}
	if t.Filter != nil && t.Event == "" {
		add("filter", at.prefix+"filter applies to event triggers (a reusable trigger carries its own)")
	}
	if t.Timezone != "" && t.Cron == "" {
		add("timezone", at.prefix+"timezone applies to cron triggers")
	}
	switch {
	case t.ID != "":
		if why := v.lookup(v.env.Trigger(v.ctx, t.ID)); why != "" {
			add(at.id, at.prefix+at.id+" "+why)
		}
	case t.Cron != "":
		if setting, why := CheckCron(t.Cron, t.Timezone, v.env.CronMinInterval()); why != "" {
			add(setting, at.prefix+why)
		}
	default:
		if why := v.env.EventPattern(t.Event); why != "" {
			add("event", fmt.Sprintf("%sevent %q %s", at.prefix, t.Event, why))
		}
		if t.Filter != nil {
			if _, err := query.Parse(t.Filter, nil); err != nil {
				add("filter", at.prefix+"filter: "+err.Error())
			}
		}
	}
}

func (v *validator) stepID(i int) {
	s := &v.d.Steps[i]
	switch {
	case s.ID == "":
		v.addStep(i, "id", "id is required")
	case s.ID == contract.End:
		v.addStep(i, "id", "id %q is reserved: it ends the run", contract.End)
	case !idRe.MatchString(s.ID):
		v.addStep(i, "id", "id must start with a letter and hold at most 64 letters, digits, - or _")
	default:
		if j, dup := v.ids[s.ID]; dup {
			v.addStep(i, "id", "id is also used by step #%d; step ids must be unique", j+1)
			return
		}
		v.ids[s.ID] = i
	}
}

func (v *validator) step(i int) {
	s := &v.d.Steps[i]
	own, known := settingsOf[s.Type]
	if !known {
		if s.Type == "" {
			v.addStep(i, "type", "type is required: one of %s", strings.Join(contract.Types, ", "))
		} else {
			v.addStep(i, "type", "unknown step type %q: use one of %s", s.Type, strings.Join(contract.Types, ", "))
		}
		return
	}
	v.foreignSettings(i, own)
	v.jumps(i)
	v.retry(i)
	v.templates(i)
	switch s.Type {
	case contract.TypeTrigger:
		v.triggerStep(i)
	case contract.TypeCondition:
		v.condition(i)
	case contract.TypeTransform:
		v.transform(i)
	case contract.TypeHTTP:
		v.http(i)
	case contract.TypeDB:
		v.db(i)
	case contract.TypeNotification:
		v.notification(i)
	case contract.TypeWait:
		v.wait(i)
	case contract.TypeSubPipeline:
		v.ref(i, "pipeline", s.Pipeline, nil)
	case contract.TypeFunction:
		v.ref(i, "function", s.Function, v.env.Function)
	}
}

// foreignSettings refuses settings of another step type, so a misplaced
// setting is not silently ignored.
func (v *validator) foreignSettings(i int, own []string) {
	raw, _ := json.Marshal(v.d.Steps[i])
	var set map[string]any
	_ = json.Unmarshal(raw, &set)
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if !slices.Contains(own, k) && !slices.Contains(commonSettings, k) {
			v.addStep(i, k, "%s is not a setting of %s steps (they take %s)", k, v.d.Steps[i].Type, strings.Join(own, ", "))
		}
	}
	if v.d.Steps[i].TimeoutMs < 0 {
		v.addStep(i, "timeoutMs", "timeoutMs must be positive")
	}
}

func (v *validator) target(i int, setting, id string) {
	if id == "" || id == contract.End {
		return
	}
	if _, ok := v.ids[id]; !ok {
		v.addStep(i, setting, "%s %q names no step of this pipeline (use a step id or %q)", setting, id, contract.End)
	}
}

func (v *validator) jumps(i int) {
	s := &v.d.Steps[i]
	v.target(i, "next", s.Next)
	v.target(i, "then", s.Then)
	v.target(i, "else", s.Else)
	switch s.OnError {
	case "", contract.OnErrorFail, contract.OnErrorContinue:
		if s.OnErrorStep != "" {
			v.addStep(i, "onErrorStep", "onErrorStep needs onError %q", contract.OnErrorGoto)
		}
	case contract.OnErrorGoto:
		if s.OnErrorStep == "" {
			v.addStep(i, "onErrorStep", "onError %q needs onErrorStep", contract.OnErrorGoto)
		}
		v.target(i, "onErrorStep", s.OnErrorStep)
	default:
		v.addStep(i, "onError", "onError must be %s, %s or %s", contract.OnErrorFail, contract.OnErrorContinue, contract.OnErrorGoto)
	}
}

func (v *validator) retry(i int) {
	r := v.d.Steps[i].Retry
	if r == nil {
		return
	}
	if r.MaxAttempts < 0 || r.MaxAttempts > MaxAttempts {
		v.addStep(i, "retry.maxAttempts", "retry.maxAttempts must be between 1 and %d", MaxAttempts)
	}
	if r.InitialIntervalMs < 0 || r.MaxIntervalMs < 0 || r.MaxIntervalMs > 3600_000 {
		v.addStep(i, "retry", "retry intervals must be positive and at most an hour")
	}
	if r.BackoffCoefficient != 0 && (r.BackoffCoefficient < 1 || r.BackoffCoefficient > 10) {
		v.addStep(i, "retry.backoffCoefficient", "retry.backoffCoefficient must be between 1 and 10")
	}
}

// templates checks every {{...}} of the step: known roots, existing step
// ids, and no secrets where the value would land in workflow history.
func (v *validator) templates(i int) {
	s := &v.d.Steps[i]
	refs, err := template.Refs(s.Templated())
	if err != nil {
		v.addStep(i, "", "%v", err)
		return
	}
	for _, r := range refs {
		switch {
		case !slices.Contains(contract.Roots, r.Root()):
			v.addStep(i, "", "template {{%s}}: unknown root %q (use %s)", r.Path, r.Root(), strings.Join(contract.Roots, ", "))
		case r.Root() == contract.RootSecrets && workflowRendered[s.Type]:
			v.addStep(i, "", "template {{%s}}: %s steps cannot use secrets (their values are kept in the run's history)", r.Path, s.Type)
		case r.Root() == contract.RootSecrets && len(r.Parts) < 2:
			v.addStep(i, "", "template {{%s}}: name the credential, e.g. {{secrets.smtp.password}}", r.Path)
		case r.Root() == contract.RootSteps:
			if len(r.Parts) < 3 || r.Parts[2] != "output" {
				v.addStep(i, "", "template {{%s}}: refer to a step's output as steps.<id>.output", r.Path)
			} else if _, ok := v.ids[r.Parts[1]]; !ok {
				v.addStep(i, "", "template {{%s}}: no step has id %q", r.Path, r.Parts[1])
			}
		}
	}
}

func (v *validator) condition(i int) {
	s := &v.d.Steps[i]
	if s.If == nil {
		v.addStep(i, "if", "if is required: a filter over the run's data, e.g. {\"event.data.country\": \"DE\"}")
		return
	}
	if _, err := query.Parse(s.If, nil); err != nil {
		v.addStep(i, "if", "if: %v", err)
	}
}

func (v *validator) transform(i int) {
	s := &v.d.Steps[i]
	if s.Language == "" {
		s.Language = contract.LangJSONata
	}
	if s.Language != contract.LangJSONata && s.Language != contract.LangJavaScript {
		v.addStep(i, "language", "language must be %s or %s", contract.LangJSONata, contract.LangJavaScript)
		return
	}
	if strings.TrimSpace(s.Expression) == "" {
		v.addStep(i, "expression", "expression is required")
		return
	}
	if s.TimeoutMs > MaxCodeMs {
		v.addStep(i, "timeoutMs", "timeoutMs of a transform is at most %d (30 seconds)", MaxCodeMs)
	}
	ce, err := v.env.Compile(v.ctx, s.Language, s.Expression)
	if err != nil {
		v.lookup("", err)
		return
	}
	if ce != nil {
		v.addStep(i, "expression", "expression does not compile: %s (line %d, column %d)", ce.Message, ce.Line, ce.Column)
		last := v.problems[len(v.problems)-1]
		last.Line, last.Column = ce.Line, ce.Column
	}
}

var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}

func (v *validator) http(i int) {
	s := &v.d.Steps[i]
	if s.Method == "" {
		s.Method = "GET"
	}
	s.Method = strings.ToUpper(s.Method)
	if !slices.Contains(httpMethods, s.Method) {
		v.addStep(i, "method", "method must be one of %s", strings.Join(httpMethods, ", "))
	}
	switch {
	case s.URL == "":
		v.addStep(i, "url", "url is required")
	case !strings.Contains(s.URL, "{{"):
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			v.addStep(i, "url", "url must be an absolute http or https URL")
		}
	}
	if s.TimeoutMs > MaxHTTPMs {
		v.addStep(i, "timeoutMs", "timeoutMs is at most %d (5 minutes)", MaxHTTPMs)
	}
	for k := range s.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n") {
			v.addStep(i, "headers", "header name %q is not valid", k)
		}
	}
}

var dbOps = []string{contract.OpCreate, contract.OpRead, contract.OpUpdate, contract.OpDelete}

func (v *validator) db(i int) {
	s := &v.d.Steps[i]
	if !slices.Contains(dbOps, s.Op) {
		v.addStep(i, "op", "op must be one of %s", strings.Join(dbOps, ", "))
		return
	}
	if s.Collection == "" {
		v.addStep(i, "collection", "collection is required")
	} else if why := v.lookup(v.env.Collection(v.ctx, s.Collection, s.Op)); why != "" {
		v.addStep(i, "collection", "collection %q: %s", s.Collection, why)
	}
	needs := map[string][]string{contract.OpCreate: {"data"}, contract.OpUpdate: {"recordId", "data"}, contract.OpDelete: {"recordId"}}
	for _, k := range needs[s.Op] {
		if (k == "data" && s.Data == nil) || (k == "recordId" && s.RecordID == "") {
			v.addStep(i, k, "%s is required for op %s", k, s.Op)
		}
	}
	if s.Op == contract.OpRead && s.RecordID == "" && s.Filter == nil {
		v.addStep(i, "filter", "op read needs recordId or filter")
	}
	if s.Filter != nil && s.Op != contract.OpRead {
		v.addStep(i, "filter", "filter applies to op read only")
	}
	if s.Filter != nil {
		if _, err := query.Parse(s.Filter, nil); err != nil {
			v.addStep(i, "filter", "filter: %v", err)
		}
	}
	if s.Limit < 0 || s.Limit > 100 {
		v.addStep(i, "limit", "limit must be between 1 and 100")
	}
}

var channels = []string{contract.ChannelMail, contract.ChannelSMS, contract.ChannelPush}

func (v *validator) notification(i int) {
	s := &v.d.Steps[i]
	if !slices.Contains(channels, s.Channel) {
		v.addStep(i, "channel", "channel must be one of %s", strings.Join(channels, ", "))
	}
	if s.To == nil || s.To == "" {
		v.addStep(i, "to", "to is required: a recipient or a list of them")
	}
	switch s.To.(type) {
	case nil, string, []any:
	default:
		v.addStep(i, "to", "to must be a string or a list of strings")
	}
	if strings.TrimSpace(s.Template) == "" {
		v.addStep(i, "template", "template is required: the message text, with {{...}} templates")
	}
}

func (v *validator) wait(i int) {
	s := &v.d.Steps[i]
	switch {
	case (s.Duration == "") == (s.Until == ""):
		v.addStep(i, "duration", "a wait step takes duration (e.g. 15m) or until (a date), one of them")
	case s.Duration != "":
		d, err := time.ParseDuration(s.Duration)
		if err != nil || d <= 0 || d.Milliseconds() > MaxWaitMs {
			v.addStep(i, "duration", "duration must be a positive duration of at most a year, such as 90s, 15m or 48h")
		}
	case !strings.Contains(s.Until, "{{"):
		if _, err := time.Parse(time.RFC3339, s.Until); err != nil {
			v.addStep(i, "until", "until must be an RFC 3339 date such as 2026-12-24T18:00:00Z, or a template")
		}
	}
}

func (v *validator) ref(i int, setting, id string, check func(context.Context, string) (string, error)) {
	if id == "" {
		v.addStep(i, setting, "%s is required: the id of the %s to call", setting, setting)
		return
	}
	if !query.ValidID(id) {
		v.addStep(i, setting, "%s must be an ObjectId", setting)
		return
	}
	if check != nil {
		if why := v.lookup(check(v.ctx, id)); why != "" {
			v.addStep(i, setting, "%s %s", setting, why)
		}
	}
}

// SubPipelineRefs lists the pipelines a definition calls.
func SubPipelineRefs(d *contract.Definition) []string {
	var out []string
	for _, s := range d.Steps {
		if s.Type == contract.TypeSubPipeline && s.Pipeline != "" {
			out = append(out, s.Pipeline)
		}
	}
	return out
}

// cycles follows subPipeline references from each subPipeline step; a path
// that comes back to this pipeline is a cycle, named with the step.
func (v *validator) cycles() {
	for i, s := range v.d.Steps {
		if s.Type != contract.TypeSubPipeline || !query.ValidID(s.Pipeline) {
			continue
		}
		path, found, err := v.pathBack(s.Pipeline, []string{v.self}, map[string]bool{})
		if err != nil {
			v.lookup("", err)
			return
		}
		if path != nil {
			v.addStep(i, "pipeline", "subPipeline cycle: %s", strings.Join(path, " → "))
		} else if !found {
			v.addStep(i, "pipeline", "pipeline %s does not exist", s.Pipeline)
		}
	}
}

// pathBack returns the call path from seen[0] through id back to seen[0],
// or nil when there is none; found reports whether id exists.
func (v *validator) pathBack(id string, path []string, visited map[string]bool) ([]string, bool, error) {
	path = append(path, id)
	if id == v.self {
		return path, true, nil
	}
	if visited[id] {
		return nil, true, nil
	}
	visited[id] = true
	refs, found, err := v.env.SubPipelines(v.ctx, id)
	if err != nil || !found {
		return nil, found, err
	}
	for _, r := range refs {
		p, _, err := v.pathBack(r, path, visited)
		if err != nil || p != nil {
			return p, true, err
		}
	}
	return nil, true, nil
}
