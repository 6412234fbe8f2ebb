package events

import "strings"

// Matches reports whether the event name is selected by one of patterns:
// an exact name, "<plural>.*" or "*".
func Matches(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == "*" || p == name {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasSuffix(prefix, ".") && strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// CheckPattern says why pattern selects no known event ("" when it is
// valid): it must be a known name, "*", or "<plural>.*" of a resource
// that emits events.
func CheckPattern(pattern string, known []string) string {
	if pattern == "*" {
		return ""
	}
	for _, k := range known {
		if k == pattern {
			return ""
		}
	}
	prefix, wild := strings.CutSuffix(pattern, ".*")
	if !wild {
		return "is not a known event name (GET /events lists them) nor a wildcard such as consumers.* or *"
	}
	for _, k := range known {
		if strings.HasPrefix(k, prefix+".") {
			return ""
		}
	}
	return "selects no event: no resource " + prefix + " emits events"
}
