package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	ok := Step{ID: "t", Type: TypeTransform, Expression: "1"}
	cases := []struct {
		name  string
		def   Definition
		field string
	}{
		{"valid", Definition{Steps: []Step{ok}}, ""},
		{"no steps", Definition{}, "steps"},
		{"reserved id", Definition{Steps: []Step{{ID: End, Type: TypeTransform, Expression: "1"}}}, "steps[0].id"},
		{"bad id", Definition{Steps: []Step{{ID: "1st", Type: TypeTransform, Expression: "1"}}}, "steps[0].id"},
		{"jump to nowhere", Definition{Steps: []Step{{ID: "t", Type: TypeTransform, Expression: "1", Next: "x"}}}, "steps[0].next"},
		{"goto without step", Definition{Steps: []Step{{ID: "t", Type: TypeTransform, Expression: "1", OnError: OnErrorGoto}}}, "steps[0].onErrorStep"},
		{"bad onError", Definition{Steps: []Step{{ID: "t", Type: TypeTransform, Expression: "1", OnError: "retry"}}}, "steps[0].onError"},
		{"too many attempts", Definition{Steps: []Step{{ID: "t", Type: TypeTransform, Expression: "1", Retry: &Retry{MaxAttempts: 99}}}}, "steps[0].retry.maxAttempts"},
		{"syntax", Definition{Steps: []Step{{ID: "t", Type: TypeTransform, Expression: "$sum("}}}, "steps[0].expression"},
		{"bad language", Definition{Steps: []Step{{ID: "t", Type: TypeTransform, Expression: "1", Language: "python"}}}, "steps[0].language"},
		{"transform time-out beyond the sandbox", Definition{Steps: []Step{{ID: "t", Type: TypeTransform, Expression: "1", TimeoutMs: 60_000}}}, "steps[0].timeoutMs"},
		{"http without url", Definition{Steps: []Step{{ID: "h", Type: TypeHTTP}}}, "steps[0].url"},
		{"http bad method", Definition{Steps: []Step{{ID: "h", Type: TypeHTTP, Method: "TRACE", URL: "https://x.example"}}}, "steps[0].method"},
		{"db update without id", Definition{Steps: []Step{{ID: "d", Type: TypeDB, Collection: "tasks", Op: OpUpdate, Data: map[string]any{"a": 1}}}}, "steps[0].recordId"},
		{"db read without filter", Definition{Steps: []Step{{ID: "d", Type: TypeDB, Collection: "tasks", Op: OpRead}}}, "steps[0].filter"},
		{"db elsewhere", Definition{Steps: []Step{{ID: "d", Type: TypeDB, Collection: "users", Op: OpCreate, Data: map[string]any{}}}}, "steps[0].collection"},
		{"notification channel", Definition{Steps: []Step{{ID: "n", Type: TypeNotification, Channel: "fax", To: "x", Template: "t"}}}, "steps[0].channel"},
		{"notification to", Definition{Steps: []Step{{ID: "n", Type: TypeNotification, Channel: ChannelMail, To: 5.0, Template: "t"}}}, "steps[0].to"},
		{"wait both", Definition{Steps: []Step{{ID: "w", Type: TypeWait, Duration: "1m", Until: "2030-01-01T00:00:00Z"}}}, "steps[0].duration"},
		{"wait too long", Definition{Steps: []Step{{ID: "w", Type: TypeWait, Duration: "9000h"}}}, "steps[0].duration"},
		{"wait bad date", Definition{Steps: []Step{{ID: "w", Type: TypeWait, Until: "tomorrow"}}}, "steps[0].until"},
		{"function not an id", Definition{Steps: []Step{{ID: "f", Type: TypeFunction, Function: "sum"}}}, "steps[0].function"},
		{"cycle through two", Definition{Steps: []Step{{ID: "s", Type: TypeSubPipeline, Pipeline: other}}}, "steps[0].pipeline"},
		{"missing callee", Definition{Steps: []Step{{ID: "s", Type: TypeSubPipeline, Pipeline: "dddddddddddddddddddddddd"}}}, "steps[0].pipeline"},
		{"event and cron", Definition{Trigger: &Trigger{Event: "*", Cron: "@hourly"}, Steps: []Step{ok}}, "trigger"},
		{"filter on cron", Definition{Trigger: &Trigger{Cron: "@hourly", Filter: map[string]any{"a": 1}}, Steps: []Step{ok}}, "trigger.filter"},
		{"bad cron", Definition{Trigger: &Trigger{Cron: "* * *"}, Steps: []Step{ok}}, "trigger.cron"},
		{"unknown event", Definition{Trigger: &Trigger{Event: "nope.nope"}, Steps: []Step{ok}}, "trigger.event"},
		{"secrets in a condition", Definition{Steps: []Step{{ID: "c", Type: TypeSubPipeline, Pipeline: third, Input: "{{secrets.a.b}}"}}}, "steps[0]"},
		{"output without output", Definition{Steps: []Step{ok, {ID: "h", Type: TypeHTTP, URL: "https://x.example/{{steps.t.result}}"}}}, "steps[1]"},
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

func TestCycleMessageNamesThePath(t *testing.T) {
	e := env{pipelines: map[string][]string{other: {third}, third: {self}}}
	d := Definition{Steps: []Step{{ID: "call", Type: TypeSubPipeline, Pipeline: other}}}
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
	require.Equal(t, 1, (&Step{Type: TypeTransform}).EffectiveRetry().MaxAttempts)
	require.Equal(t, 3, (&Step{Type: TypeHTTP}).EffectiveRetry().MaxAttempts)
	r := (&Step{Type: TypeHTTP, Retry: &Retry{MaxAttempts: 5, InitialIntervalMs: 10}}).EffectiveRetry()
	require.Equal(t, Retry{MaxAttempts: 5, InitialIntervalMs: 10, BackoffCoefficient: 2, MaxIntervalMs: 60_000}, r)
}
