// Package pipeline checks pipeline definitions: it decodes a stored
// record into a contract.Definition (the steps the interpreter runs, see
// package workflows/contract), validates it before it is saved, and holds
// the rules of what is recorded (redaction). It has no side effects: the
// interpreter workflow (package workflows) and the step activities
// (package activities/pipelines) run what is defined.
package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"

	"platform/workflows/contract"
)

// Limits of a definition, checked when it is saved (the interpreter's own
// are in package contract).
const (
	MaxSteps    = 100             // steps in one definition
	MaxHTTPMs   = 5 * 60_000      // the highest time-out an http step may ask for
	MaxCodeMs   = 30_000          // the highest time-out a transform may ask for (the sandbox's limit)
	MaxWaitMs   = 365 * 86400_000 // a wait step waits at most a year
	MaxAttempts = 10              // retry.maxAttempts
)

// FromDoc decodes a stored record (or request body) into a Definition.
// Unknown settings are an error naming the step, so a typo is not silently
// ignored.
func FromDoc(doc map[string]any) (*contract.Definition, error) {
	raw, err := json.Marshal(map[string]any{"name": doc["name"], "trigger": doc["trigger"], "steps": doc["steps"]})
	if err != nil {
		return nil, err
	}
	var shape struct {
		Name    any               `json:"name"`
		Trigger json.RawMessage   `json:"trigger"`
		Steps   []json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal(raw, &shape); err != nil {
		return nil, &Problem{Field: "steps", Message: "steps must be an array of objects"}
	}
	d := &contract.Definition{}
	d.Name, _ = shape.Name.(string)
	if len(shape.Trigger) > 0 && string(shape.Trigger) != "null" {
		d.Trigger = &contract.Trigger{}
		if err := strictDecode(shape.Trigger, d.Trigger); err != nil {
			return nil, &Problem{Field: "trigger", Message: "trigger: " + err.Error()}
		}
	}
	for i, s := range shape.Steps {
		var st contract.Step
		if err := strictDecode(s, &st); err != nil {
			return nil, &Problem{Field: fmt.Sprintf("steps[%d]", i), Step: stepID(s), Message: fmt.Sprintf("step %s: %v", describe(stepID(s), i), err)}
		}
		d.Steps = append(d.Steps, st)
	}
	return d, nil
}

// ToDoc is the inverse of FromDoc for the steps and trigger of a record.
func ToDoc(d *contract.Definition) (map[string]any, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func stepID(raw json.RawMessage) string {
	var s struct {
		ID any `json:"id"`
	}
	_ = json.Unmarshal(raw, &s)
	id, _ := s.ID.(string)
	return id
}

func describe(id string, i int) string {
	if id != "" {
		return fmt.Sprintf("%q", id)
	}
	return fmt.Sprintf("#%d", i+1)
}
