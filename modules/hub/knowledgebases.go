package hub

import (
	"bufio"
	"context"
	_ "embed"
	"regexp"
	"strings"
	"sync"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/wiki"
)

// Themes are the colour schemes a knowledge base may use.
var Themes = []string{"indigo", "emerald", "amber", "slate", "teal", "violet"}

// slugPattern is a URL segment: lower-case letters and digits in words
// joined by single hyphens.
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// KnowledgeBases declares /knowledgebases, addressed by id or slug.
// Rights: hub.knowledgebases.{view|create|edit|delete}.
func KnowledgeBases() *resource.Resource {
	return &resource.Resource{
		Plural: wiki.KnowledgeBases, Title: "knowledge base", Key: "slug",
		Fields: []resource.Field{
			{Name: "slug", Type: resource.TString, Required: true, Unique: true, MaxLen: 100, Filter: true, Sort: true,
				Description: "URL segment, unique per customer: lower-case letters and digits joined by hyphens; GET /knowledgebases/:slug"},
			{Name: "title", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "theme", Type: resource.TString, Enum: Themes, Default: "indigo", Filter: true, Description: "colour scheme"},
			{Name: "icon", Type: resource.TString, MaxLen: 64, Filter: true,
				Description: "a Material Symbols or Material Icons name, such as menu_book (the list ships with the platform)"},
			{Name: "published", Type: resource.TBool, Default: false, Filter: true, Sort: true},
			{Name: "order", Type: resource.TInteger, Default: int64(0), Filter: true, Sort: true, Description: "sidebar sort, ascending"},
		},
		DefaultSort: []store.SortField{{Field: "order"}, {Field: "title"}},
		Hooks:       resource.Hooks{BeforeWrite: checkKnowledgeBase, BeforeDelete: refuseUsedBaseDelete},
	}
}

// checkKnowledgeBase checks the slug's form and the icon's name; a slug in
// use by pages cannot change (their kbslug would point nowhere).
func checkKnowledgeBase(ctx context.Context, w *resource.Write) error {
	var errs []resource.ErrorEntry
	if slug, _ := w.New["slug"].(string); !slugPattern.MatchString(slug) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, "slug", "a slug is lower-case letters and digits joined by single hyphens, such as getting-started"))
	}
	if icon, ok := w.New["icon"].(string); ok && !IsIcon(icon) {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, "icon", "%q is not a Material icon name (lower case with underscores, such as menu_book)", icon))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	return keepSlugOfUsedBase(ctx, w)
}

func keepSlugOfUsedBase(ctx context.Context, w *resource.Write) error {
	if w.Old == nil || w.Old["slug"] == w.New["slug"] {
		return nil
	}
	n, err := wiki.PagesIn(ctx, w.Service.Store, w.Old["slug"].(string))
	if err != nil || n == 0 {
		return err
	}
	return resource.InvalidField("slug", "%d wiki pages belong to this knowledge base: its slug cannot change while they do", n)
}

// refuseUsedBaseDelete keeps pages from losing their knowledge base.
func refuseUsedBaseDelete(ctx context.Context, s *resource.Service, old store.Doc) error {
	n, err := wiki.PagesIn(ctx, s.Store, old["slug"].(string))
	if err != nil || n == 0 {
		return err
	}
	return resource.Conflict("slug", "%d wiki pages belong to this knowledge base: move or delete them first", n)
}

//go:embed icons.txt
var iconList string

var icons = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(iconList))
	for sc.Scan() {
		if name := strings.TrimSpace(sc.Text()); name != "" && !strings.HasPrefix(name, "#") {
			set[name] = true
		}
	}
	return set
})

// IsIcon reports whether name is a Material Symbols or Material Icons name.
func IsIcon(name string) bool { return icons()[name] }
