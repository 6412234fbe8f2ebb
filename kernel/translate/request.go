package translate

import (
	"encoding/json"
	"fmt"
)

// request is DeepL's JSON body of POST /v2/translate.
type request struct {
	Text        []string `json:"text"`
	TargetLang  string   `json:"target_lang"`
	SourceLang  string   `json:"source_lang,omitempty"`
	TagHandling string   `json:"tag_handling,omitempty"`
	IgnoreTags  []string `json:"ignore_tags,omitempty"`
}

// response is DeepL's answer.
type response struct {
	Translations []struct {
		DetectedSourceLanguage string `json:"detected_source_language"`
		Text                   string `json:"text"`
	} `json:"translations"`
}

// ignoredTags are never translated in HTML: code is code, whatever the
// attributes say.
var ignoredTags = []string{"code", "pre", "kbd", "samp", "var"}

func newRequest(source, target string, format Format) (request, error) {
	var r request
	var err error
	if r.TargetLang, err = DeepLTarget(target); err != nil {
		return r, err
	}
	if r.SourceLang, err = DeepLSource(source); err != nil {
		return r, err
	}
	switch format {
	case FormatText, "":
	case FormatHTML:
		r.TagHandling, r.IgnoreTags = "html", ignoredTags
	default:
		return r, fmt.Errorf("%w %q", ErrFormat, format)
	}
	return r, nil
}

// DeepL limits one request to 50 texts and 128 KiB of body.
const (
	maxTexts      = 50
	maxBatchBytes = 120 << 10 // leaves room for the rest of the body
)

// batches splits texts into runs that fit one request. A text too large
// for any request goes alone: the provider's refusal says why.
func batches(texts []string) [][]string {
	var out [][]string
	start, size := 0, 0
	for i, t := range texts {
		n := jsonSize(t)
		if i > start && (i-start == maxTexts || size+n > maxBatchBytes) {
			out = append(out, texts[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(texts) {
		out = append(out, texts[start:])
	}
	return out
}

// jsonSize is the encoded size of t in the body, escapes and separator
// included, so a batch of text full of quotes still fits.
func jsonSize(t string) int {
	b, _ := json.Marshal(t) // a string always encodes
	return len(b) + 1
}
