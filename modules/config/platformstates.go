package config

import (
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/config/states"
)

// PlatformStates declares the read-only /platformstates: what each module
// registered at start-up (a module-overview per module, a table per
// resource, a right per right), derived from the resource declarations.
// States are global: the same for every customer, as the code is.
func PlatformStates() *resource.Resource {
	str := func(name string) resource.Field { return resource.Field{Name: name, Type: resource.TString} }
	boolean := func(name string) resource.Field { return resource.Field{Name: name, Type: resource.TBool} }
	strList := &resource.Field{Type: resource.TString}
	return &resource.Resource{
		Plural: states.Collection, Title: "platform state", ReadOnly: true, Global: true,
		Fields: []resource.Field{
			{Name: states.FieldModule, Type: resource.TString, Filter: true, Sort: true, Description: "the module that registered the state"},
			{Name: states.FieldAppName, Type: resource.TString, Filter: true, Sort: true, Description: "the release that registered it (PLATFORM_RELEASE, default platform)"},
			{Name: states.FieldName, Type: resource.TString, Filter: true, Sort: true,
				Description: "<module>.<plural> for a table (crm.consumers), the right for a right (crm.consumers.view), the module for its overview"},
			{Name: states.FieldType, Type: resource.TString, Enum: states.Types, Filter: true, Sort: true},
			{Name: "cols", Type: resource.TArray, Description: "a table's columns: every readable field, with whether it may be filtered and sorted on",
				Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{str("name"), str("type"), boolean("filter"), boolean("sort"), boolean("readOnly"),
					{Name: "enum", Type: resource.TArray, Items: strList}}}},
			{Name: "filters", Type: resource.TArray, Items: strList, Filter: true, Description: "a table's filterable fields"},
			{Name: "actions", Type: resource.TArray, Description: "a table's operations and actions, each with its method, path and right",
				Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{str("name"), str("method"), str("path"), str("right"), str("title")}}},
			{Name: "links", Type: resource.TArray, Description: "the resource (self, openapi, relations), a right's resource, or an overview's tables",
				Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{str("rel"), str("href"), str("title"), str("state")}}},
			{Name: states.FieldHash, Type: resource.TString, Description: "sum of the content: it changes when the declaration does"},
		},
		DefaultSort: []store.SortField{{Field: states.FieldModule}, {Field: states.FieldType}, {Field: states.FieldName}},
		Indexes: []store.Index{{Name: "uniq_state", Unique: true,
			Keys: []store.SortField{{Field: states.FieldModule}, {Field: states.FieldAppName}, {Field: states.FieldName}, {Field: states.FieldType}}}},
	}
}

// ModuleStateCache declares the read-only /modulestate-cache: one summary
// per module and release, rebuilt from the platform states after each
// registration.
func ModuleStateCache() *resource.Resource {
	integer := func(name string) resource.Field {
		return resource.Field{Name: name, Type: resource.TInteger, Sort: true}
	}
	strList := &resource.Field{Type: resource.TString}
	return &resource.Resource{
		Plural: states.CacheCollection, Title: "module state summary", ReadOnly: true, Global: true,
		Fields: []resource.Field{
			{Name: states.FieldModule, Type: resource.TString, Filter: true, Sort: true},
			{Name: states.FieldAppName, Type: resource.TString, Filter: true, Sort: true},
			{Name: "overview", Type: resource.TString, Description: "the name of the module's overview state"},
			{Name: "tables", Type: resource.TArray, Items: &resource.Field{Type: resource.TObject, Fields: []resource.Field{
				{Name: "name", Type: resource.TString}, {Name: "href", Type: resource.TString}, {Name: "title", Type: resource.TString},
				{Name: "filters", Type: resource.TArray, Items: strList}, {Name: "actions", Type: resource.TArray, Items: strList},
			}}},
			{Name: "rights", Type: resource.TArray, Items: strList, Filter: true},
			integer("stateCount"), integer("tableCount"), integer("rightCount"),
			{Name: states.FieldHash, Type: resource.TString, Description: "changes whenever one of the module's states does"},
		},
		DefaultSort: []store.SortField{{Field: states.FieldModule}},
	}
}
