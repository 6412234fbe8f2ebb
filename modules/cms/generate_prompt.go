package cms

import (
	"strings"

	"platform/kernel/resource"
)

// describeFields says in words what a model must put in a block's fields:
// name, kind, required, allowed values, nested members.
func describeFields(fields []resource.Field) string {
	parts := make([]string, 0, len(fields))
	for i := range fields {
		parts = append(parts, describeField(&fields[i]))
	}
	return strings.Join(parts, "; ")
}

func describeField(f *resource.Field) string {
	var notes []string
	if f.Required {
		notes = append(notes, "required")
	}
	notes = append(notes, kindOf(f))
	if len(f.Enum) > 0 {
		notes = append(notes, "one of "+strings.Join(f.Enum, "|"))
	}
	s := f.Name + " (" + strings.Join(notes, ", ") + ")"
	if f.Type == resource.TArray && f.Items != nil && len(f.Items.Fields) > 0 {
		s += " of {" + describeFields(f.Items.Fields) + "}"
	} else if f.Type == resource.TObject && len(f.Fields) > 0 {
		s += " {" + describeFields(f.Fields) + "}"
	}
	return s
}

func kindOf(f *resource.Field) string {
	switch {
	case f.Format == resource.FURL:
		return "https URL"
	case f.Format == resource.FMarkdown:
		return "Markdown"
	case f.Type == resource.TArray && f.Items != nil && f.Items.Type == resource.TString:
		return "array of strings"
	}
	return string(f.Type)
}
