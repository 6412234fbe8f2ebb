package testenv

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// AwaitLogLine waits up to 30 s (generous: the line may follow a client's
// hang-up or a store call on a busy machine) for a JSON log line in logs
// holding every part, and decodes it.
func AwaitLogLine(t testing.TB, logs *SyncBuffer, parts ...string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, l := range strings.Split(logs.String(), "\n") {
			if containsAll(l, parts) {
				var line map[string]any
				if err := json.Unmarshal([]byte(l), &line); err != nil {
					t.Fatalf("log line %q: %v", l, err)
				}
				return line
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no log line with %v in\n%s", parts, logs.String())
	return nil
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
