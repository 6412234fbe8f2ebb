package translate

import (
	"errors"

	"platform/kernel/resource"
)

// CallerError is a provider's failure as a translate action answers it:
// a 422 on the locale field when the provider cannot name the locale, a
// 503 with the provider's reason otherwise (never its key: errors of
// this package hold none).
func CallerError(err error, localeField string) error {
	if errors.Is(err, ErrLocale) {
		return resource.InvalidField(localeField, "%s", err.Error())
	}
	return resource.Unavailable("the translation provider failed: %s", err.Error()).WithCause(err)
}
