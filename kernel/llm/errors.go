package llm

import (
	"errors"

	"platform/kernel/outbound"
)

var (
	// ErrUnauthorized: the provider refused the key (401) or the key may
	// not use what was asked for (403).
	ErrUnauthorized = errors.New("llm: the provider refused the API key")
	// ErrQuota: the account's credit or quota is used up (429 with code
	// insufficient_quota); waiting does not help, billing does.
	ErrQuota = errors.New("llm: the account's quota is used up")
	// ErrInvalid: the Request is out of bounds; nothing was sent.
	ErrInvalid = errors.New("llm: invalid request")
	// ErrTruncated: the answer was cut at the token limit, so it is not
	// the whole answer (and no valid JSON); raise MaxTokens or ask for
	// less.
	ErrTruncated = errors.New("llm: the answer was cut at the token limit")
	// ErrEmpty: the provider answered without text.
	ErrEmpty = errors.New("llm: the provider answered no text")
)

// RetryableError is a failure that may pass if the call is repeated
// later: the provider is rate-limiting (429) or failing (5xx).
type RetryableError = outbound.RetryableError

// PermanentError is a request the provider rejected (a 4xx other than
// 401, 403 and 429): an unknown model, a prompt beyond the model's
// context. Repeating it fails again.
type PermanentError = outbound.PermanentError
