package translate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/translate"
)

func TestDeepLTarget(t *testing.T) {
	for tag, want := range map[string]string{
		"de": "DE", "de-AT": "DE", "DE-ch": "DE", "fr_CA": "FR", "ja": "JA",
		"en": "EN-US", "en-US": "EN-US", "en-CA": "EN-US", "en-GB": "EN-GB", "en-AU": "EN-GB", "en-IE": "EN-GB",
		"pt": "PT-BR", "pt-BR": "PT-BR", "pt-PT": "PT-PT", "pt-AO": "PT-PT",
		"zh": "ZH-HANS", "zh-CN": "ZH-HANS", "zh-Hans": "ZH-HANS", "zh-TW": "ZH-HANT", "zh-Hant": "ZH-HANT", "zh-Hant-TW": "ZH-HANT", "zh-Hans-HK": "ZH-HANS",
		"es": "ES", "es-ES": "ES", "es-419": "ES-419",
	} {
		got, err := translate.DeepLTarget(tag)
		require.NoError(t, err, tag)
		assert.Equal(t, want, got, tag)
	}
}

func TestDeepLSource(t *testing.T) {
	for tag, want := range map[string]string{"": "", "en-GB": "EN", "pt-BR": "PT", "zh-Hant": "ZH", "de": "DE"} {
		got, err := translate.DeepLSource(tag)
		require.NoError(t, err, tag)
		assert.Equal(t, want, got, tag)
	}
}

func TestLocalesRefused(t *testing.T) {
	for _, tag := range []string{"", "d", "deutsch", "de-", "de-DE-1996", "en-x-private", "12", "de DE", "../de"} {
		_, err := translate.DeepLTarget(tag)
		assert.ErrorIs(t, err, translate.ErrLocale, "%q", tag)
	}
	_, err := translate.DeepLSource("en-")
	assert.ErrorIs(t, err, translate.ErrLocale)
}
