package provider

import (
	"fmt"
	"net/url"
)

// str is the string value key, required or not.
func str(v Values, key string, required bool) (string, error) {
	raw, ok := v[key]
	if !ok || raw == nil {
		if required {
			return "", &InvalidError{Field: "credentials." + key, Reason: "is required for this command"}
		}
		return "", nil
	}
	s, ok := raw.(string)
	if !ok || (required && s == "") {
		return "", &InvalidError{Field: "credentials." + key, Reason: "must be a non-empty string"}
	}
	return s, nil
}

// httpURL is the http(s) URL under key.
func httpURL(v Values, key string) (string, error) {
	s, err := str(v, key, true)
	if err != nil {
		return "", err
	}
	u, perr := url.Parse(s)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", &InvalidError{Field: "credentials." + key, Reason: "must be an absolute http or https URL"}
	}
	return s, nil
}

// statusFailure is the verdict of an answer that is no 2xx.
func statusFailure(what string, code int) *Failure {
	return &Failure{Reason: fmt.Sprintf("%s answered HTTP %d", what, code)}
}
