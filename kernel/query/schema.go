package query

// Type is the declared type of a filterable field; Parse coerces filter
// values to it (a date string becomes a time.Time, an id is checked).
type Type int

const (
	TypeAny Type = iota
	TypeString
	TypeNumber
	TypeBool
	TypeDate
	TypeID
	TypeObject
)

func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeNumber:
		return "number"
	case TypeBool:
		return "boolean"
	case TypeDate:
		return "date"
	case TypeID:
		return "id"
	case TypeObject:
		return "object"
	}
	return "any"
}

// FieldType is a field's type; Array means the field holds an array of Type.
type FieldType struct {
	Type  Type
	Array bool
}

// Schema says which dotted paths may be filtered on and what they hold.
// Inside $elemMatch on an array of objects, the inner paths are looked up
// with the array's path in front ("items.price").
type Schema interface {
	Lookup(path string) (FieldType, bool)
}

// MapSchema is a Schema listing every filterable path.
type MapSchema map[string]FieldType

// Lookup implements Schema.
func (m MapSchema) Lookup(path string) (FieldType, bool) {
	t, ok := m[path]
	return t, ok
}

func lookupField(s Schema, path string) (FieldType, bool) {
	if s == nil {
		return FieldType{Type: TypeAny}, true
	}
	return s.Lookup(path)
}
