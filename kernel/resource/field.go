package resource

import "platform/kernel/query"

// Type is a field's wire type.
type Type string

const (
	TString   Type = "string"
	TNumber   Type = "number"
	TInteger  Type = "integer"
	TBool     Type = "boolean"
	TDate     Type = "date"     // ISO 8601 timestamp
	TObjectID Type = "objectid" // 24-hex record id
	TObject   Type = "object"
	TArray    Type = "array"
	// TAny is any JSON value (a pipeline step's output).
	TAny Type = ""
)

// Format refines a string field's validation.
type Format string

const (
	FEmail    Format = "email"
	FURL      Format = "url"
	FPhone    Format = "e164"
	FCountry  Format = "iso3166-alpha2"
	FMarkdown Format = "markdown"
	FLocale   Format = "locale"
)

// Field declares one field of a resource.
type Field struct {
	Name     string
	Type     Type
	Items    *Field  // element of an array
	Fields   []Field // members of an object; none with FreeForm means any keys
	Union    *Union  // an object whose fields depend on its tag (TObject)
	FreeForm bool    // object with tenant-defined keys (customCRM)
	Required bool
	Enum     []string
	Format   Format
	MaxLen   int // strings; 0 = default limit
	// Range bounds a number or integer field, both ends included; nil
	// leaves it unbounded (still finite: bodies refuse the rest).
	Range *Range
	// MinItems and MaxItems bound an array's length; 0 leaves that end
	// open.
	MinItems, MaxItems int
	Description        string
	Default            any

	// ReadOnly fields are set by the platform; clients sending them get a
	// 422. A Default is still given to new records (an initial state).
	ReadOnly bool
	// Right, when set, is needed to set or change the field on any route
	// (crm.tasks.assign for a task's assignedTo), besides the route's own.
	Right string
	// SuppliedBy names another field whose content may supply this one
	// (a wiki page's front matter in body sets its title): a required
	// field is then not required in the published schema, though it still
	// is once Hooks.Prepare has run.
	SuppliedBy string
	// WriteOnly fields are accepted but never returned (secrets).
	WriteOnly bool
	// Virtual fields are computed on read and never stored.
	Virtual bool
	// NotInEvents keeps a large derived value (a page's rendered HTML)
	// out of the record's events: an event says what changed, and whoever
	// needs the value reads the record.
	NotInEvents bool

	Filter bool // may appear in filter and shorthand
	Sort   bool // may appear in sort
	Unique bool // unique per customer
	// UniqueWithin names a parent field: the value is unique per customer
	// and value of that field (a wiki page's slug within its knowledge
	// base), instead of per customer as with Unique.
	UniqueWithin string
}

// Range is an inclusive numeric interval.
type Range struct{ Min, Max float64 }

// Between is the Range from min to max, both included.
func Between(min, max float64) *Range { return &Range{Min: min, Max: max} }

// DefaultMaxLen caps strings that declare no limit, so no field can hold a
// document-sized value by accident.
const DefaultMaxLen = 10000

// maxLen is the longest string the field takes.
func (f *Field) maxLen() int {
	if f.MaxLen > 0 {
		return f.MaxLen
	}
	return DefaultMaxLen
}

// queryType maps a field to the query package's type for filter coercion.
func (f *Field) queryType() query.FieldType {
	t := f.Type
	arr := false
	if t == TArray && f.Items != nil {
		t, arr = f.Items.Type, true
	}
	var qt query.Type
	switch t {
	case TString:
		qt = query.TypeString
	case TNumber, TInteger:
		qt = query.TypeNumber
	case TBool:
		qt = query.TypeBool
	case TDate:
		qt = query.TypeDate
	case TObjectID:
		qt = query.TypeID
	case TObject:
		qt = query.TypeObject
	default:
		qt = query.TypeAny
	}
	return query.FieldType{Type: qt, Array: arr}
}
