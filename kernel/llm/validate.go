package llm

import (
	"fmt"
	"math"
	"strings"
)

// Bounds of a Request: generous for a prepared prompt, small enough that
// a tenant's input cannot make one call expensive or huge.
const (
	MaxModelLen    = 200
	MaxMessages    = 50
	MaxPromptBytes = 200_000 // of System and all Contents together
	MaxMaxTokens   = 32768
	MaxTemperature = 2.0
)

// validate checks r (its model already defaulted) against the bounds.
func (r Request) validate() error {
	if err := r.validateModel(); err != nil {
		return err
	}
	if err := r.validateMessages(); err != nil {
		return err
	}
	if r.MaxTokens < 0 || r.MaxTokens > MaxMaxTokens {
		return invalid("MaxTokens %d is not within 0..%d", r.MaxTokens, MaxMaxTokens)
	}
	if t := r.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > MaxTemperature) {
		return invalid("Temperature %v is not within 0..%v", *t, MaxTemperature)
	}
	if r.JSON && !r.mentions("json") {
		return invalid("JSON asked for, but no message says \"JSON\": providers refuse that")
	}
	return nil
}

func (r Request) validateModel() error {
	switch {
	case strings.TrimSpace(r.Model) == "":
		return invalid("no model: set Request.Model or Config.Model")
	case len(r.Model) > MaxModelLen:
		return invalid("model name longer than %d bytes", MaxModelLen)
	}
	return nil
}

func (r Request) validateMessages() error {
	if len(r.Messages) == 0 || len(r.Messages) > MaxMessages {
		return invalid("%d messages, want 1..%d", len(r.Messages), MaxMessages)
	}
	size := len(r.System)
	for i, m := range r.Messages {
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return invalid("message %d has role %q, want %q or %q", i, m.Role, RoleUser, RoleAssistant)
		}
		size += len(m.Content)
	}
	if size > MaxPromptBytes {
		return invalid("prompt of %d bytes, at most %d", size, MaxPromptBytes)
	}
	return nil
}

// mentions reports whether the system prompt or a message holds word,
// in any case.
func (r Request) mentions(word string) bool {
	if strings.Contains(strings.ToLower(r.System), word) {
		return true
	}
	for _, m := range r.Messages {
		if strings.Contains(strings.ToLower(m.Content), word) {
			return true
		}
	}
	return false
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}
