package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/workflows/contract"
)

// env answers from maps: the automation module's Env answers from the
// store and the sandbox (tested there through the API).
type env struct {
	pipelines map[string][]string // id -> subPipeline refs
}

func (env) EventPattern(p string) string {
	if p == "consumers.created" || p == "consumers.*" || p == "*" {
		return ""
	}
	return "is not an event name"
}
func (env) Trigger(context.Context, string) (string, error)  { return "", nil }
func (env) Function(context.Context, string) (string, error) { return "", nil }
func (e env) SubPipelines(_ context.Context, id string) ([]string, bool, error) {
	refs, ok := e.pipelines[id]
	return refs, ok, nil
}
func (env) Collection(_ context.Context, c, _ string) (string, error) {
	if c == "tasks" {
		return "", nil
	}
	return "is not a data collection", nil
}
func (env) CronMinInterval() time.Duration { return 0 }
func (env) Compile(_ context.Context, _ string, code string) (*CodeError, error) {
	if strings.Contains(code, "(") && !strings.Contains(code, ")") {
		return &CodeError{Message: "unexpected end", Line: 1, Column: len(code)}, nil
	}
	return nil, nil
}

const (
	self  = "aaaaaaaaaaaaaaaaaaaaaaaa"
	other = "bbbbbbbbbbbbbbbbbbbbbbbb"
	third = "cccccccccccccccccccccccc"
)

func TestValidate(t *testing.T) {
	e := env{pipelines: map[string][]string{other: {third}, third: {self}}}
	ok := contract.Step{ID: "t", Type: contract.TypeTransform, Expression: "1"}
	cases := []struct {
		name  string
		def   contract.Definition
		field string
	}{
		{"valid", contract.Definition{Steps: []contract.Step{ok}}, ""},
		{"no steps", contract.Definition{}, "steps"},
		{"reserved id", contract.Definition{Steps: []contract.Step{{ID: contract.End, Type: contract.TypeTransform, Expression: "1"}}}, "steps[0].id"},
		{"bad id", contract.Definition{Steps: []contract.Step{{ID: "1st", Type: contract.TypeTransform, Expression: "1"}}}, "steps[0].id"},
		{"jump to nowhere", contract.Definition{Steps: []contract.Step{{ID: "t", Type: contract.TypeTransform, Expression: "1", Next: "x"}}}, "steps[0].next"},
		{"goto without step", contract.Definition{Steps: []contract.Step{{ID: "t", Type: contract.TypeTransform, Expression: "1", OnError: contract.OnErrorGoto}}}, "steps[0].onErrorStep"},
		{"bad onError", contract.Definition{Steps: []contract.Step{{ID: "t", Type: contract.TypeTransform, Expression: "1", OnError: "retry"}}}, "steps[0].onError"},
		{"too many attempts", contract.Definition{Steps: []contract.Step{{ID: "t", Type: contract.TypeTransform, Expression: "1", Retry: &contract.Retry{MaxAttempts: 99}}}}, "steps[0].retry.maxAttempts"},
		{"syntax", contract.Definition{Steps: []contract.Step{{ID: "t", Type: contract.TypeTransform, Expression: "$sum("}}}, "steps[0].expression"},
		{"bad language", contract.Definition{Steps: []contract.Step{{ID: "t", Type: contract.TypeTransform, Expression: "1", Language: "python"}}}, "steps[0].language"},
		{"transform time-out beyond the sandbox", contract.Definition{Steps: []contract.Step{{ID: "t", Type: contract.TypeTransform, Expression: "1", TimeoutMs: 60_000}}}, "steps[0].timeoutMs"},
		{"http without url", contract.Definition{Steps: []contract.Step{{ID: "h", Type: contract.TypeHTTP}}}, "steps[0].url"},
		{"http bad method", contract.Definition{Steps: []contract.Step{{ID: "h", Type: contract.TypeHTTP, Method: "TRACE", URL: "https://x.example"}}}, "steps[0].method"},
		{"db update without id", contract.Definition{Steps: []contract.Step{{ID: "d", Type: contract.TypeDB, Collection: "tasks", Op: contract.OpUpdate, Data: map[string]any{"a": 1}}}}, "steps[0].recordId"},
		{"db read without filter", contract.Definition{Steps: []contract.Step{{ID: "d", Type: contract.TypeDB, Collection: "tasks", Op: contract.OpRead}}}, "steps[0].filter"},
		{"db elsewhere", contract.Definition{Steps: []contract.Step{{ID: "d", Type: contract.TypeDB, Collection: "users", Op: contract.OpCreate, Data: map[string]any{}}}}, "steps[0].collection"},
		{"notification channel", contract.Definition{Steps: []contract.Step{{ID: "n", Type: contract.TypeNotification, Channel: "fax", To: "x", Template: "t"}}}, "steps[0].channel"},
		{"notification to", contract.Definition{Steps: []contract.Step{{ID: "n", Type: contract.TypeNotification, Channel: contract.ChannelMail, To: 5.0, Template: "t"}}}, "steps[0].to"},
		{"wait both", contract.Definition{Steps: []contract.Step{{ID: "w", Type: contract.TypeWait, Duration: "1m", Until: "2030-01-01T00:00:00Z"}}}, "steps[0].duration"},
		{"wait too long", contract.Definition{Steps: []contract.Step{{ID: "w", Type: contract.TypeWait, Duration: "9000h"}}}, "steps[0].duration"},
		{"wait bad date", contract.Definition{Steps: []contract.Step{{ID: "w", Type: contract.TypeWait, Until: "tomorrow"}}}, "steps[0].until"},
		{"function not an id", contract.Definition{Steps: []contract.Step{{ID: "f", Type: contract.TypeFunction, Function: "sum"}}}, "steps[0].function"},
		{"cycle through two", contract.Definition{Steps: []contract.Step{{ID: "s", Type: contract.TypeSubPipeline, Pipeline: other}}}, "steps[0].pipeline"},
		{"missing callee", contract.Definition{Steps: []contract.Step{{ID: "s", Type: contract.TypeSubPipeline, Pipeline: "dddddddddddddddddddddddd"}}}, "steps[0].pipeline"},
		{"event and cron", contract.Definition{Trigger: &contract.Trigger{Event: "*", Cron: "@hourly"}, Steps: []contract.Step{ok}}, "trigger"},
		{"filter on cron", contract.Definition{Trigger: &contract.Trigger{Cron: "@hourly", Filter: map[string]any{"a": 1}}, Steps: []contract.Step{ok}}, "trigger.filter"},
		{"bad cron", contract.Definition{Trigger: &contract.Trigger{Cron: "* * *"}, Steps: []contract.Step{ok}}, "trigger.cron"},
		{"unknown event", contract.Definition{Trigger: &contract.Trigger{Event: "nope.nope"}, Steps: []contract.Step{ok}}, "trigger.event"},
		{"cron every minute", contract.Definition{Trigger: &contract.Trigger{Cron: "@every 1m"}, Steps: []contract.Step{ok}}, ""},
		{"cron every second", contract.Definition{Trigger: &contract.Trigger{Cron: "@every 1s"}, Steps: []contract.Step{ok}}, "trigger.cron"},
		{"cron seconds field", contract.Definition{Trigger: &contract.Trigger{Cron: "* * * * * *"}, Steps: []contract.Step{ok}}, "trigger.cron"},
		{"cron step every second", contract.Definition{Steps: []contract.Step{{ID: "s", Type: contract.TypeTrigger, Cron: "@every 10s"}, ok}}, "steps[0].cron"},
		{"secrets in a condition", contract.Definition{Steps: []contract.Step{{ID: "c", Type: contract.TypeSubPipeline, Pipeline: third, Input: "{{secrets.a.b}}"}}}, "steps[0]"},
		{"output without output", contract.Definition{Steps: []contract.Step{ok, {ID: "h", Type: contract.TypeHTTP, URL: "https://x.example/{{steps.t.result}}"}}}, "steps[1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problems, err := Validate(context.Background(), &c.def, self, e)
			require.NoError(t, err)
			if c.field == "" {
				require.Empty(t, problems)
				return
			}
			require.NotEmpty(t, problems)
			var fields []string
			for _, p := range problems {
				fields = append(fields, p.Field)
			}
			require.Contains(t, fields, c.field, "%v", problems[0].Message)
		})
	}
}

// TestTriggerStep: the specification's trigger step is the optional first
// step carrying a definition trigger's settings; it is the one source of
// truth of what starts the pipeline when the definition has no trigger.
func TestTriggerStep(t *testing.T) {
	e := env{}
	ok := contract.Step{ID: "t", Type: contract.TypeTransform, Expression: "1"}
	onEvent := contract.Step{ID: "start", Type: contract.TypeTrigger, Event: "consumers.created", Filter: map[string]any{"country": "DE"}}
	cases := []struct {
		name  string
		def   contract.Definition
		field string
	}{
		{"event first", contract.Definition{Steps: []contract.Step{onEvent, ok}}, ""},
		{"cron first", contract.Definition{Steps: []contract.Step{{ID: "start", Type: contract.TypeTrigger, Cron: "0 9 * * *", Timezone: "Europe/Berlin"}, ok}}, ""},
		{"reusable first", contract.Definition{Steps: []contract.Step{{ID: "start", Type: contract.TypeTrigger, TriggerID: other}, ok}}, ""},
		{"not first", contract.Definition{Steps: []contract.Step{ok, onEvent}}, "steps[1].type"},
		{"with the definition's trigger", contract.Definition{Trigger: &contract.Trigger{Event: "*"}, Steps: []contract.Step{onEvent, ok}}, "trigger"},
		{"event and cron", contract.Definition{Steps: []contract.Step{{ID: "start", Type: contract.TypeTrigger, Event: "*", Cron: "@hourly"}, ok}}, "steps[0]"},
		{"bad cron", contract.Definition{Steps: []contract.Step{{ID: "start", Type: contract.TypeTrigger, Cron: "* * *"}, ok}}, "steps[0].cron"},
		{"unknown event", contract.Definition{Steps: []contract.Step{{ID: "start", Type: contract.TypeTrigger, Event: "nope.nope"}, ok}}, "steps[0].event"},
		{"timezone on event", contract.Definition{Steps: []contract.Step{{ID: "start", Type: contract.TypeTrigger, Event: "*", Timezone: "UTC"}, ok}}, "steps[0].timezone"},
		{"foreign setting", contract.Definition{Steps: []contract.Step{{ID: "start", Type: contract.TypeTrigger, Event: "*", URL: "https://x.example"}, ok}}, "steps[0].url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problems, err := Validate(context.Background(), &c.def, self, e)
			require.NoError(t, err)
			if c.field == "" {
				require.Empty(t, problems)
				require.Equal(t, c.def.Steps[0].AsTrigger(), c.def.StartTrigger())
				return
			}
			require.NotEmpty(t, problems)
			var fields []string
			for _, p := range problems {
				fields = append(fields, p.Field)
			}
			require.Contains(t, fields, c.field, "%v", problems[0].Message)
		})
	}
	both := contract.Definition{Trigger: &contract.Trigger{Event: "*"}, Steps: []contract.Step{onEvent, ok}}
	problems, _ := Validate(context.Background(), &both, self, e)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0].Message, `trigger and the trigger step "start" both say what starts the pipeline`)
}

func TestFromDocReadsATriggerStep(t *testing.T) {
	d, err := FromDoc(map[string]any{"name": "x", "steps": []any{
		map[string]any{"id": "start", "type": "trigger", "trigger": other},
		map[string]any{"id": "a", "type": "transform", "expression": "1"}}})
	require.NoError(t, err)
	require.Equal(t, &contract.Trigger{ID: other}, d.StartTrigger())
}

func TestCycleMessageNamesThePath(t *testing.T) {
	e := env{pipelines: map[string][]string{other: {third}, third: {self}}}
	d := contract.Definition{Steps: []contract.Step{{ID: "call", Type: contract.TypeSubPipeline, Pipeline: other}}}
	problems, err := Validate(context.Background(), &d, self, e)
	require.NoError(t, err)
	require.Len(t, problems, 1)
	require.Equal(t, "call", problems[0].Step)
	require.Contains(t, problems[0].Message, self+" → "+other+" → "+third+" → "+self)
}

func TestFromDocRefusesUnknownSettings(t *testing.T) {
	_, err := FromDoc(map[string]any{"name": "x", "steps": []any{map[string]any{"id": "a", "type": "transform", "expresion": "1"}}})
	require.Error(t, err)
	p := err.(*Problem)
	require.Equal(t, "steps[0]", p.Field)
	require.Contains(t, p.Message, `step "a"`)
	require.Contains(t, p.Message, "expresion")
}

func TestEffectiveRetry(t *testing.T) {
	require.Equal(t, 1, (&contract.Step{Type: contract.TypeTransform}).EffectiveRetry().MaxAttempts)
	require.Equal(t, 3, (&contract.Step{Type: contract.TypeHTTP}).EffectiveRetry().MaxAttempts)
	r := (&contract.Step{Type: contract.TypeHTTP, Retry: &contract.Retry{MaxAttempts: 5, InitialIntervalMs: 10}}).EffectiveRetry()
	require.Equal(t, contract.Retry{MaxAttempts: 5, InitialIntervalMs: 10, BackoffCoefficient: 2, MaxIntervalMs: 60_000}, r)
}

// TestCheckCronMinimumInterval: schedules firing more often than the
// minimum are refused naming the cron setting; five-field expressions are
// measured by their shortest gap.
func TestCheckCronMinimumInterval(t *testing.T) {
	for _, c := range []struct {
		expr string
		min  time.Duration
		ok   bool
	}{
		{"@every 1s", 0, false},
		{"@every 59s", 0, false},
		{"@every 1m", 0, true},
		{"* * * * *", 0, true},
		{"* * * * * *", 0, false},
		{"*/2 * * * *", 5 * time.Minute, false},
		{"0,3 * * * *", 5 * time.Minute, false},
		{"*/5 * * * *", 5 * time.Minute, true},
		{"@every 1s", time.Second, true},
		{"0 9 * * 1-5", time.Hour, true},
	} {
		setting, why := CheckCron(c.expr, "", c.min)
		if c.ok {
			require.Empty(t, why, c.expr)
			continue
		}
		require.Equal(t, "cron", setting, c.expr)
		require.NotEmpty(t, why, c.expr)
	}
	_, why := CheckCron("@every 1s", "", 0)
	require.Contains(t, why, "at most once every 1m0s")
}
