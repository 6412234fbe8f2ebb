package api

// Link is an entry of meta.links.
type Link struct {
	Rel    string   `json:"rel" yaml:"rel"`
	Href   string   `json:"href" yaml:"href"`
	Method string   `json:"method" yaml:"method"`
	Title  string   `json:"title" yaml:"title"`
	Types  []string `json:"types" yaml:"types"`
}

// RelationLink is an entry of meta.relations: a related resource and the right
// needed to follow it.
type RelationLink struct {
	Rel    string   `json:"rel" yaml:"rel"`
	Title  string   `json:"title" yaml:"title"`
	Href   string   `json:"href" yaml:"href"`
	Method string   `json:"method" yaml:"method"`
	Types  []string `json:"types" yaml:"types"`
	Right  string   `json:"right" yaml:"right"`
}

// ActionLink is an entry of meta.actions.
type ActionLink struct {
	Rel    string   `json:"rel" yaml:"rel"`
	Action string   `json:"action" yaml:"action"`
	Title  string   `json:"title" yaml:"title"`
	Href   string   `json:"href" yaml:"href"`
	Method string   `json:"method" yaml:"method"`
	Types  []string `json:"types" yaml:"types"`
}

// Version is meta.version.
type Version struct {
	Host string `json:"host" yaml:"host"`
	Core string `json:"core" yaml:"core"`
}

// RateLimit is meta.rateLimit; every field is a string as specified. It
// reports the bucket the request counted against (api/limits.go), on every
// answer of a module. An answer no limiter sees (health probes, a starting
// process, a request net/http refused) has an empty object: the envelope
// schema requires the key, and empty strings would read as values.
type RateLimit struct {
	Limit     string `json:"limit,omitempty" yaml:"limit,omitempty"`
	Reset     string `json:"reset,omitempty" yaml:"reset,omitempty"`
	Remaining string `json:"remaining,omitempty" yaml:"remaining,omitempty"`
	ResetDate string `json:"resetDate,omitempty" yaml:"resetDate,omitempty"`
}

// Meta is the meta object of every answer.
type Meta struct {
	Links        []Link         `json:"links" yaml:"links"`
	Relations    []RelationLink `json:"relations" yaml:"relations"`
	Actions      []ActionLink   `json:"actions" yaml:"actions"`
	DebugID      string         `json:"debugId" yaml:"debugId"`
	Errors       []ErrorEntry   `json:"errors" yaml:"errors"`
	Version      Version        `json:"version" yaml:"version"`
	RateLimit    RateLimit      `json:"rateLimit" yaml:"rateLimit"`
	ResponseTime float64        `json:"responseTime" yaml:"responseTime"` // milliseconds
	Code         int            `json:"code" yaml:"code"`
	Status       string         `json:"status" yaml:"status"`
	Error        bool           `json:"error" yaml:"error"`
	// Pagination of lists (DESIGN §3): page, limit, and total when asked.
	Page  int    `json:"page,omitempty" yaml:"page,omitempty"`
	Limit int    `json:"limit,omitempty" yaml:"limit,omitempty"`
	Total *int64 `json:"total,omitempty" yaml:"total,omitempty"`
	// TotalRelation comes with total: "eq" (exact) or "gte" (more match;
	// total is the cap of a filtered count; docs/counts.md).
	TotalRelation string `json:"totalRelation,omitempty" yaml:"totalRelation,omitempty"`
	// Warnings are what a successful call tells besides its answer, shaped
	// as errors entries (a saved URL the outbound guard will refuse).
	Warnings []ErrorEntry `json:"warnings,omitempty" yaml:"warnings,omitempty"`
}

// Envelope is every answer: { payload, meta }.
type Envelope struct {
	Payload any  `json:"payload" yaml:"payload"`
	Meta    Meta `json:"meta" yaml:"meta"`
}

// Types lists the output formats every link offers.
var Types = []string{"application/json", "application/yaml", "text/csv"}

// Versions of the core and the module hosts, in dotted numeric form.
const CoreVersion = "1.0.0"
