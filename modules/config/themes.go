package config

import (
	"context"
	"regexp"

	"platform/kernel/resource"
)

var (
	// hexColour is #rgb, #rgba, #rrggbb or #rrggbbaa.
	hexColour = regexp.MustCompile(`^#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)
	// fontFamily is a CSS font-family list without anything that could
	// leave the declaration it is written into (; { } < > \ ( ) are out).
	fontFamily = regexp.MustCompile(`^[A-Za-z0-9'"][A-Za-z0-9 ,'"-]*$`)
)

// themeColours and themeFonts are the named parts of a theme.
var (
	themeColours = []string{"primary", "secondary", "accent", "background", "surface", "text", "muted", "success", "warning", "error"}
	themeFonts   = []string{"heading", "body", "mono"}
)

// Themes declares /themes: a customer's colour scheme, fonts and logo. At
// most one theme is the default.
func Themes() *resource.Resource {
	return &resource.Resource{
		Plural: "themes", Title: "theme",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 100, Unique: true, Filter: true, Sort: true, Description: "unique per customer"},
			{Name: "colors", Type: resource.TObject, Fields: stringMembers(themeColours, 9, "a hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa"),
				Description: "hex colours by role"},
			{Name: "fonts", Type: resource.TObject, Fields: stringMembers(themeFonts, 200, "a CSS font-family list such as \"Inter, sans-serif\""),
				Description: "font-family lists by role"},
			{Name: "logo", Type: resource.TObjectID, Filter: true, Description: "an asset holding a PNG, JPEG, GIF or WebP image"},
			{Name: "default", Type: resource.TBool, Default: false, Filter: true,
				Description: "the customer's default theme; at most one: setting it on a theme clears it on the one that had it"},
		},
		Hooks: resource.Hooks{BeforeWrite: themeBeforeWrite, AfterWrite: onlyDefault("themes")},
	}
}

func stringMembers(names []string, maxLen int, desc string) []resource.Field {
	out := make([]resource.Field, len(names))
	for i, n := range names {
		out[i] = resource.Field{Name: n, Type: resource.TString, MaxLen: maxLen, Description: desc}
	}
	return out
}

// themeBeforeWrite checks what the declaration cannot: the colours' and
// fonts' syntax and that the logo is an image asset of the customer.
func themeBeforeWrite(ctx context.Context, w *resource.Write) error {
	var errs []resource.ErrorEntry
	colours, _ := w.New["colors"].(map[string]any)
	for k, v := range colours {
		if !hexColour.MatchString(str(v)) {
			errs = append(errs, resource.FieldError(resource.CodeFormat, "colors."+k, "colors.%s must be a hex colour such as #1a73e8 (#rgb, #rgba, #rrggbb or #rrggbbaa)", k))
		}
	}
	fonts, _ := w.New["fonts"].(map[string]any)
	for k, v := range fonts {
		if !fontFamily.MatchString(str(v)) {
			errs = append(errs, resource.FieldError(resource.CodeFormat, "fonts."+k,
				"fonts.%s must be a font-family list such as \"Inter, sans-serif\": letters, digits, spaces, commas, quotes and hyphens", k))
		}
	}
	more, err := checkImageAsset(ctx, w, "logo")
	if err != nil {
		return err
	}
	errs = append(errs, more...)
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return nil
}
