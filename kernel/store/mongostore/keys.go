package mongostore

import "strings"

// MongoDB servers (FerretDB always, MongoDB in several operations) refuse
// field names containing '.' or starting with '$', but documents nested in
// records are data that may hold any key: a condition {"event.data.x": 1},
// a filter {"$or": [...]}, a JSON body. Nested keys are stored escaped
// ('%' → %25, '.' → %2E, a leading '$' → %24) and unescaped on read.
// Top-level field names are the platform's own and stay as they are (they
// double as update paths).

var (
	keyEscaper   = strings.NewReplacer("%", "%25", ".", "%2E")
	keyUnescaper = strings.NewReplacer("%25", "%", "%2E", ".", "%24", "$")
)

func escapeKey(k string) string {
	if !strings.ContainsAny(k, "%.$") {
		return k
	}
	k = keyEscaper.Replace(k)
	if strings.HasPrefix(k, "$") {
		k = "%24" + k[1:]
	}
	return k
}

func unescapeKey(k string) string {
	if !strings.Contains(k, "%") {
		return k
	}
	return keyUnescaper.Replace(k)
}
