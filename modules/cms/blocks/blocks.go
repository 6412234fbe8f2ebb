package blocks

import (
	"fmt"

	"platform/kernel/resource"
)

// Block types: the values of a block's "type".
const (
	TypeHero         = "hero"
	TypeText         = "text"
	TypeImage        = "image"
	TypeGallery      = "gallery"
	TypeCTA          = "cta"
	TypeForm         = "form"
	TypeEmbed        = "embed"
	TypeAccordion    = "accordion"
	TypePricing      = "pricing"
	TypeTestimonials = "testimonials"
	TypeSnippet      = "snippet"
)

// Limits of the lists Check enforces; a page is something a person
// edits, and these bound one render to milliseconds.
const (
	MaxBlocks       = 200 // per page or snippet
	MaxImages       = 50  // per gallery
	MaxItems        = 100 // per accordion
	MaxPlans        = 10  // per pricing block
	MaxFeatures     = 30  // per plan
	MaxTestimonials = 50  // per testimonials block
)

// Lengths of the strings a block holds.
const (
	urlLen      = 2048
	shortLen    = 120  // a name, label or role
	lineLen     = 300  // a headline, title or alt text
	sentenceLen = 1000 // a subline, caption or question
	markdownLen = 100000
)

// tag is the union's discriminator field.
const tag = "type"

// declaration is built once: Render and Texts read it for every page.
var declaration = blocksField()

// Field is the "blocks" array of a web page or snippet: each element a
// block of one of the types above. Check enforces what it cannot say.
// The nested declaration is shared: read it, do not change it.
func Field() resource.Field { return declaration }

// union is the block union the declaration holds.
func union() *resource.Union { return declaration.Items.Union }

func blocksField() resource.Field {
	u := &resource.Union{Name: "Block", Tag: tag, Common: commonFields(), Variants: variants()}
	return resource.Field{Name: "blocks", Type: resource.TArray,
		Items:       &resource.Field{Type: resource.TObject, Union: u, Description: "a block of the page"},
		Description: fmt.Sprintf("the page's content, shown in order (then list order); at most %d blocks", MaxBlocks)}
}

// commonFields are the fields every block has.
func commonFields() []resource.Field {
	return []resource.Field{
		{Name: "_id", Type: resource.TObjectID, Description: "the block's id: set by the platform when absent; send it back to keep the block's identity"},
		{Name: "order", Type: resource.TInteger, Description: "position on the page, lowest first; equal orders keep list order"},
		{Name: "visible", Type: resource.TBool, Default: true, Description: "false leaves the block out of the page"},
		{Name: "responsiveSettings", Type: resource.TObject, Description: "per screen size: visibility, alignment and spacing",
			Fields: []resource.Field{screen("mobile"), screen("tablet"), screen("desktop")}},
	}
}

// Values of a screen's settings; each becomes a CSS class (classes).
var (
	alignments = []string{"left", "center", "right"}
	spacings   = []string{"none", "small", "medium", "large"}
)

func screen(name string) resource.Field {
	return resource.Field{Name: name, Type: resource.TObject, Description: "settings on " + name + " screens",
		Fields: []resource.Field{
			{Name: "visible", Type: resource.TBool, Description: "false hides the block on " + name + " screens"},
			{Name: "alignment", Type: resource.TString, Enum: alignments},
			{Name: "spacing", Type: resource.TString, Enum: spacings},
		}}
}

// str, link, markdown, id and list shorten the variants' declarations.
func str(name string, max int, required bool, desc string) resource.Field {
	return resource.Field{Name: name, Type: resource.TString, MaxLen: max, Required: required, Description: desc}
}

func link(name string, required bool, desc string) resource.Field {
	return resource.Field{Name: name, Type: resource.TString, Format: resource.FURL, MaxLen: urlLen, Required: required, Description: desc}
}

func markdown(name string, desc string) resource.Field {
	return resource.Field{Name: name, Type: resource.TString, Format: resource.FMarkdown, MaxLen: markdownLen, Required: true, Description: desc}
}

func id(name, desc string) resource.Field {
	return resource.Field{Name: name, Type: resource.TObjectID, Required: true, Description: desc}
}

// list is a required array of objects of fields, of min to max elements.
func list(name string, min, max int, desc string, fields ...resource.Field) resource.Field {
	return resource.Field{Name: name, Type: resource.TArray, Required: true,
		Items:       &resource.Field{Type: resource.TObject, Fields: fields},
		Description: fmt.Sprintf("%s (%d to %d)", desc, min, max)}
}
