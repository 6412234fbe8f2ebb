package scopes

import "strings"

// Group is what a grant allows within one module, in plain words.
type Group struct {
	Module string
	Lines  []string // e.g. "Consumers: see, create, change, delete"
}

var moduleNames = map[string]string{"crm": "CRM", "cms": "CMS", "ai": "AI", "devops": "DevOps"}

// ModuleName is a module's display name.
func ModuleName(m string) string {
	if n, ok := moduleNames[m]; ok {
		return n
	}
	if m == "" {
		return m
	}
	return strings.ToUpper(m[:1]) + m[1:]
}

// Describe groups granted rights by module and resource for the consent
// screen; standard scopes come first as "Your account".
func (c *Catalog) Describe(granted []string) []Group {
	var groups []Group
	if lines := standardLines(granted); len(lines) > 0 {
		groups = append(groups, Group{Module: "Your account", Lines: lines})
	}
	type key struct{ module, resource string }
	words := map[key][]string{}
	var order []key
	for _, e := range c.entries { // declaration order: modules and resources stay together
		if !contains(granted, e.Right) {
			continue
		}
		k := key{e.Module, e.Resource}
		if _, seen := words[k]; !seen {
			order = append(order, k)
		}
		words[k] = append(words[k], e.Text)
	}
	for _, k := range order {
		line := strings.ToUpper(k.resource[:1]) + k.resource[1:] + ": " + strings.Join(words[k], ", ")
		name := ModuleName(k.module)
		if n := len(groups); n > 0 && groups[n-1].Module == name {
			groups[n-1].Lines = append(groups[n-1].Lines, line)
		} else {
			groups = append(groups, Group{Module: name, Lines: []string{line}})
		}
	}
	return groups
}

func standardLines(granted []string) []string {
	var out []string
	if contains(granted, Profile) {
		out = append(out, "Your name")
	}
	if contains(granted, Email) {
		out = append(out, "Your e-mail address")
	}
	return out
}
