package sqlitestore

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"platform/kernel/store"
)

// A decoder for the JSON that appendValue writes (and SQLite's json
// functions return): documents are read on every get, page and update, and
// a parser that builds the store's types directly is several times faster
// than encoding/json followed by a pass restoring them.

type decoder struct {
	data []byte
	pos  int
}

var errSyntax = errors.New("sqlitestore: corrupt document")

// decodeValue reads one JSON value holding tagged dates and floats.
func decodeValue(text []byte) (any, error) {
	d := decoder{data: text}
	v, err := d.value()
	if err != nil {
		return nil, fmt.Errorf("%w at byte %d: %v", errSyntax, d.pos, err)
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, fmt.Errorf("%w: trailing data at byte %d", errSyntax, d.pos)
	}
	return v, nil
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value() (any, error) {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return nil, errors.New("unexpected end")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.string()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, fmt.Errorf("unexpected %q", d.data[d.pos])
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return fmt.Errorf("bad literal, want %s", word)
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) number() (any, error) {
	start := d.pos
	float := false
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '.' || c == 'e' || c == 'E' {
			float = true
		} else if !(c >= '0' && c <= '9' || c == '-' || c == '+') {
			break
		}
		d.pos++
	}
	return restoreNumber(string(d.data[start:d.pos]), float)
}

func restoreNumber(s string, float bool) (any, error) {
	if !float {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return nil, fmt.Errorf("bad number %q", s)
	}
	return f, nil
}

func (d *decoder) array() (any, error) {
	d.pos++ // [
	out := []any{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return out, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, errors.New("unterminated array")
		}
		c := d.data[d.pos]
		d.pos++
		if c == ']' {
			return out, nil
		}
		if c != ',' {
			return nil, fmt.Errorf("unexpected %q in array", c)
		}
	}
}

func (d *decoder) object() (any, error) {
	d.pos++ // {
	out := store.Doc{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return out, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, errors.New("object key expected")
		}
		key, err := d.string()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, errors.New("':' expected")
		}
		d.pos++
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		out[key] = v
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, errors.New("unterminated object")
		}
		c := d.data[d.pos]
		d.pos++
		if c == '}' {
			return restoreTagged(out)
		}
		if c != ',' {
			return nil, fmt.Errorf("unexpected %q in object", c)
		}
	}
}

// restoreTagged turns the tags back into values and unescapes the keys
// that start with '$'.
func restoreTagged(m store.Doc) (any, error) {
	if len(m) == 1 {
		if s, ok := m[dateTag].(string); ok {
			t, err := time.Parse(dateLayout, s)
			if err != nil {
				return nil, err
			}
			return t, nil
		}
		if s, ok := m[floatTag].(string); ok && s == "NaN" {
			return math.NaN(), nil
		}
	}
	var escaped []string
	for k := range m {
		if len(k) > 1 && k[0] == '$' && k[1] == '$' {
			escaped = append(escaped, k)
		}
	}
	for _, k := range escaped {
		m[k[1:]] = m[k]
		delete(m, k)
	}
	return m, nil
}

func (d *decoder) string() (string, error) {
	d.pos++ // "
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		}
		if c == '\\' {
			return d.escapedString(start)
		}
		d.pos++
	}
	return "", errors.New("unterminated string")
}

// escapedString finishes a string that holds escapes, from its start.
func (d *decoder) escapedString(start int) (string, error) {
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.data) {
			break
		}
		e := d.data[d.pos+1]
		d.pos += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := d.unicodeEscape()
			if err != nil {
				return "", err
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", fmt.Errorf("bad escape \\%c", e)
		}
	}
	return "", errors.New("unterminated string")
}

// unicodeEscape reads the hex of a \u escape (the "\u" consumed),
// joining a surrogate pair.
func (d *decoder) unicodeEscape() (rune, error) {
	r, err := d.hex4()
	if err != nil {
		return 0, err
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
		d.pos += 2
		r2, err := d.hex4()
		if err != nil {
			return 0, err
		}
		return utf16.DecodeRune(r, r2), nil
	}
	return utf8.RuneError, nil
}

func (d *decoder) hex4() (rune, error) {
	if d.pos+4 > len(d.data) {
		return 0, errors.New("short \\u escape")
	}
	n, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 32)
	if err != nil {
		return 0, errors.New("bad \\u escape")
	}
	d.pos += 4
	return rune(n), nil
}
