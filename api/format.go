package api

import (
	"platform/kernel/resource"

	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"platform/kernel/store"
)

// Output formats (DESIGN §2).
const (
	formatJSON = "json"
	formatYAML = "yaml"
	formatCSV  = "csv"
)

var formatTypes = map[string]string{
	formatJSON: "application/json; charset=utf-8",
	formatYAML: "application/yaml; charset=utf-8",
	formatCSV:  "text/csv; charset=utf-8",
}

// negotiate picks the output format from ?format= or Accept.
func negotiate(r *http.Request) (string, error) {
	if f := r.URL.Query().Get("format"); f != "" {
		if _, ok := formatTypes[f]; !ok {
			return formatJSON, BadRequest(resource.CodeBadQuery, "format", "format must be json, yaml or csv")
		}
		return f, nil
	}
	accept := r.Header.Get("Accept")
	if accept == "" {
		return formatJSON, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mt := strings.TrimSpace(strings.SplitN(part, ";", 2)[0])
		switch mt {
		case "application/json", "*/*", "application/*", "":
			return formatJSON, nil
		case "application/yaml", "application/x-yaml", "text/yaml":
			return formatYAML, nil
		case "text/csv":
			return formatCSV, nil
		}
	}
	return formatJSON, NewError(http.StatusNotAcceptable, CodeNotAcceptable, "", "offered formats are application/json, application/yaml and text/csv")
}

// encode writes the envelope in the chosen format. A stored number that
// JSON cannot hold (±Inf, NaN: written before the entry checks refused
// them, or by a path around them) is rendered as null, so one such value
// cannot fail its record, let alone a list.
func encode(format string, env *Envelope) ([]byte, error) {
	body, err := encodeAs(format, env)
	var unsupported *json.UnsupportedValueError
	if errors.As(err, &unsupported) {
		clean := *env
		clean.Payload = finiteOnly(env.Payload)
		return encodeAs(format, &clean)
	}
	return body, err
}

// finiteOnly copies the maps and slices of a payload with every
// non-finite number replaced by nil; only answers holding one pay for it.
func finiteOnly(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = finiteOnly(e)
		}
		return out
	case []any:
		return finiteAll(x)
	case []store.Doc:
		return finiteAll(x)
	}
	return v
}

func finiteAll[T any](list []T) []any {
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = finiteOnly(e)
	}
	return out
}

func encodeAs(format string, env *Envelope) ([]byte, error) {
	switch format {
	case formatYAML:
		return encodeYAML(env)
	case formatCSV:
		return encodeCSV(env)
	}
	return json.Marshal(env)
}

// encodeYAML goes through JSON so both formats name fields alike.
func encodeYAML(env *Envelope) ([]byte, error) {
	j, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(j, &generic); err != nil {
		return nil, err
	}
	return yaml.Marshal(generic)
}

// encodeCSV writes the payload records with a header row; nested fields are
// flattened with dotted names. Errors are written as code,field,message rows.
func encodeCSV(env *Envelope) ([]byte, error) {
	var rows []map[string]string
	if env.Meta.Error {
		for _, e := range env.Meta.Errors {
			rows = append(rows, map[string]string{"code": e.Code, "field": e.Field, "message": e.Message})
		}
	} else {
		j, err := json.Marshal(env.Payload)
		if err != nil {
			return nil, err
		}
		var generic any
		if err := json.Unmarshal(j, &generic); err != nil {
			return nil, err
		}
		for _, rec := range records(generic) {
			flat := map[string]string{}
			flatten("", rec, flat)
			rows = append(rows, flat)
		}
	}
	return writeCSV(rows)
}

func records(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	}
	return []any{v}
}

func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(join(prefix, k), e, out)
		}
	case []any:
		if allScalars(x) {
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = scalar(e)
			}
			out[prefix] = strings.Join(parts, ";")
			return
		}
		for i, e := range x {
			flatten(join(prefix, strconv.Itoa(i)), e, out)
		}
	default:
		if prefix == "" {
			prefix = "value"
		}
		out[prefix] = scalar(x)
	}
}

func allScalars(a []any) bool {
	for _, e := range a {
		switch e.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

func writeCSV(rows []map[string]string) ([]byte, error) {
	cols := columns(rows)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(cols); err != nil {
		return nil, err
	}
	for _, r := range rows {
		line := make([]string, len(cols))
		for i, c := range cols {
			line[i] = csvSafe(r[c])
		}
		if err := w.Write(line); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// csvSafe defuses values a spreadsheet would run as formulas.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return "'" + s
		}
	}
	return s
}

func columns(rows []map[string]string) []string {
	seen := map[string]bool{}
	var cols []string
	for _, r := range rows {
		for k := range r {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	sort.Slice(cols, func(i, j int) bool {
		if (cols[i] == "_id") != (cols[j] == "_id") {
			return cols[i] == "_id"
		}
		return cols[i] < cols[j]
	})
	return cols
}
