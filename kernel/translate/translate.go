// Package translate machine-translates texts and Markdown documents: a
// Provider interface (the hub's wiki "translate" action, the CMS's block
// fields), a DeepL implementation of it over HTTP (deepl.go), and
// Markdown (markdown.go), which translates a document's prose while its
// structure, code, URLs and markup are never sent to the provider.
//
// Errors tell a caller what to do next: ErrUnauthorized and ErrQuota need
// an operator, a *RetryableError may succeed later (a Temporal activity
// retries it, honouring RetryAfter), a *PermanentError will fail again.
package translate

import (
	"context"
	"errors"
	"fmt"

	"platform/kernel/outbound"
)

// Provider translates texts.
type Provider interface {
	// Translate translates texts (order kept) into target (a BCP 47 tag
	// like "de", "pt-BR"); source "" means detect.
	Translate(ctx context.Context, texts []string, source, target string, format Format) ([]string, error)
}

// Format says how a provider reads a text.
type Format string

const (
	// FormatText is plain text: every character may be translated.
	FormatText Format = "text"
	// FormatHTML is HTML: markup is kept, only text between tags is
	// translated, and elements with translate="no" are left as they are.
	FormatHTML Format = "html"
)

var (
	// ErrUnauthorized: the provider refused the key (DeepL: 403).
	ErrUnauthorized = errors.New("translate: the provider refused the API key")
	// ErrQuota: the account's character quota is used up (DeepL: 456).
	ErrQuota = errors.New("translate: the translation quota is used up")
	// ErrLocale: a locale is no well-formed BCP 47 tag, or the provider
	// has no code for it.
	ErrLocale = errors.New("translate: unsupported locale")
	// ErrFormat: a Format other than FormatText or FormatHTML.
	ErrFormat = errors.New("translate: unknown format")
)

// RetryableError is a failure that may pass if the call is repeated
// later: the provider is overloaded (429) or failing (5xx).
type RetryableError = outbound.RetryableError

// PermanentError is a request the provider rejected (a 4xx other than
// 403, 429 and 456): repeating it fails again.
type PermanentError = outbound.PermanentError

// errTranslations: a provider answered a different number of texts than
// it was given, so none can be matched to its source.
func errTranslations(want, got int) error {
	return fmt.Errorf("translate: asked for %d translations, got %d", want, got)
}
