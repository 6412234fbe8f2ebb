package blocks

import (
	"fmt"
	"strings"

	"platform/kernel/resource"
)

// Periods a price is paid for.
var periods = []string{"month", "year", "once"}

// variants declares each block type's own fields.
func variants() []resource.Variant {
	return []resource.Variant{
		{Tag: TypeHero, Description: "a page's opening: a headline, a subline and a picture", Fields: []resource.Field{
			str("headline", lineLen, true, "the page's main heading"),
			str("subline", sentenceLen, false, "a sentence under the headline"),
			link("heroImage", false, "the picture behind the headline"),
		}},
		{Tag: TypeText, Description: "a passage of Markdown; glossary terms and wiki: links are resolved", Fields: []resource.Field{
			markdown("body", "Markdown (CommonMark and GFM)"),
		}},
		{Tag: TypeImage, Description: "one picture", Fields: imageFields()},
		{Tag: TypeGallery, Description: "a grid of pictures", Fields: []resource.Field{
			list("images", 1, MaxImages, "the pictures", imageFields()...),
		}},
		{Tag: TypeCTA, Description: "a call to action: one prominent link", Fields: []resource.Field{
			str("label", shortLen, true, "the button's text"),
			link("url", true, "where the button leads"),
		}},
		{Tag: TypeForm, Description: "a form of the CMS, shown by its id", Fields: []resource.Field{
			id("formId", "the form to show"),
			str("title", lineLen, false, "a heading over the form"),
		}},
		{Tag: TypeEmbed, Description: "a video, map or audio player of an allowed provider", Fields: []resource.Field{
			link("url", true, "the page of the video, map or track: "+strings.Join(providerNames(), ", ")),
			str("title", lineLen, false, "what the player shows, for screen readers"),
		}},
		{Tag: TypeAccordion, Description: "questions whose answers open on a click (FAQ)", Fields: []resource.Field{
			list("items", 1, MaxItems, "the questions",
				str("question", sentenceLen, true, "the question"),
				markdown("answer", "Markdown")),
		}},
		{Tag: TypePricing, Description: "plans side by side, each with a price and features", Fields: []resource.Field{
			list("plans", 1, MaxPlans, "the plans", planFields()...),
		}},
		{Tag: TypeTestimonials, Description: "quotes of customers, shown as a carousel", Fields: []resource.Field{
			list("items", 1, MaxTestimonials, "the quotes",
				str("quote", sentenceLen, true, "what they said"),
				str("author", shortLen, true, "who said it"),
				str("role", shortLen, false, "their role or company"),
				link("avatar", false, "their picture")),
		}},
		{Tag: TypeSnippet, Description: "the blocks of a snippet, shared between pages, placed here", Fields: []resource.Field{
			id("snippetId", "the snippet"),
		}},
	}
}

func imageFields() []resource.Field {
	return []resource.Field{
		link("url", true, "the picture"),
		str("alt", lineLen, true, "what the picture shows, for screen readers"),
		str("caption", sentenceLen, false, "text under the picture"),
	}
}

func planFields() []resource.Field {
	return []resource.Field{
		str("name", shortLen, true, "the plan's name"),
		{Name: "price", Type: resource.TNumber, Required: true, Description: "the amount, 0 or more"},
		{Name: "currency", Type: resource.TString, MaxLen: 3, Required: true, Description: "ISO 4217 code such as EUR"},
		{Name: "period", Type: resource.TString, Enum: periods, Required: true, Description: "what the price pays for"},
		{Name: "features", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: lineLen},
			Description: fmt.Sprintf("what the plan includes (at most %d)", MaxFeatures)},
		{Name: "cta", Type: resource.TObject, Description: "the plan's button", Fields: []resource.Field{
			str("label", shortLen, true, "the button's text"),
			link("url", true, "where the button leads"),
		}},
	}
}
