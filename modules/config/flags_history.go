package config

import (
	"context"
	"reflect"
	"sort"

	"platform/kernel/auth"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// What a history row is about.
const (
	historyFlag = "flag"
	historyRule = "rule"
)

// FlagHistory declares /flaghistory: read-only, one row per change of a
// flag or rule, written by their hooks in the record service's write
// path (so HTTP, workflows and actions alike leave one). Right:
// config.flags.view.
func FlagHistory() *resource.Resource {
	return &resource.Resource{
		Plural: FlagHistoryCollection, Title: "flag history entry", ReadOnly: true,
		Rights: resource.Rights{View: "config.flags.view"},
		Fields: []resource.Field{
			{Name: "flag", Type: resource.TString, Filter: true, Sort: true, Description: "the slug of the flag changed, or of the changed rule's flag"},
			{Name: "recordType", Type: resource.TString, Enum: []string{historyFlag, historyRule}, Filter: true, Description: "what changed: the flag or one of its rules"},
			{Name: "recordId", Type: resource.TObjectID, Filter: true, Description: "the id of the flag or rule"},
			{Name: "change", Type: resource.TString, Enum: []string{resource.EventCreated, resource.EventUpdated, resource.EventDeleted}, Filter: true},
			{Name: "actor", Type: resource.TString, Filter: true, Description: "who changed it: the user, the app of a service token, or the platform (000000000000000000000000)"},
			{Name: "actorType", Type: resource.TString, Enum: []string{"user", "app", "platform"}, Filter: true},
			{Name: "at", Type: resource.TDate, Filter: true, Sort: true, Description: "when"},
			{Name: "fields", Type: resource.TArray, Items: &resource.Field{Type: resource.TString}, Description: "the fields whose values changed"},
			{Name: "before", Type: resource.TObject, FreeForm: true, Description: "the record before the change (absent on create)"},
			{Name: "after", Type: resource.TObject, FreeForm: true, Description: "the record after the change (absent on delete)"},
		},
		DefaultSort: []store.SortField{{Field: "at", Desc: true}},
	}
}

// history records one change of a flag (kind historyFlag) or rule: old is
// nil on create, saved nil on delete.
func (e *flagEngine) history(ctx context.Context, s *resource.Service, kind string, old, saved store.Doc) error {
	rec := store.Doc{"recordType": kind, "change": resource.EventUpdated}
	switch {
	case old == nil:
		rec["change"] = resource.EventCreated
	case saved == nil:
		rec["change"] = resource.EventDeleted
	}
	for _, d := range []store.Doc{saved, old} {
		if d != nil {
			rec["recordId"], rec["flag"] = d["_id"], flagOf(kind, d)
			break
		}
	}
	before, after := snapshot(old), snapshot(saved)
	if before != nil {
		rec["before"] = before
	}
	if after != nil {
		rec["after"] = after
	}
	rec["fields"] = changedFields(before, after)
	rec["actor"], rec["actorType"] = actorOf(ctx)
	rec["at"] = at(saved)
	h := s.Registry.ByPlural(FlagHistoryCollection)
	if h == nil {
		h = FlagHistory()
	}
	if _, err := s.Insert(ctx, h, rec); err != nil {
		return resource.Unavailable("the change is saved but its history entry could not be written; save it again").WithCause(err)
	}
	return nil
}

func flagOf(kind string, d store.Doc) any {
	if kind == historyFlag {
		return d["slug"]
	}
	return d["flag"]
}

// snapshot is a record as history keeps it: without its customer.
func snapshot(d store.Doc) store.Doc {
	if d == nil {
		return nil
	}
	out := make(store.Doc, len(d))
	for k, v := range d {
		if k != store.CustomerField {
			out[k] = v
		}
	}
	return out
}

// changedFields lists the client fields that differ (the bookkeeping
// ones always move with a write and say nothing).
func changedFields(before, after store.Doc) []any {
	names := map[string]bool{}
	for k := range before {
		names[k] = true
	}
	for k := range after {
		names[k] = true
	}
	var out []string
	for k := range names {
		switch k {
		case "_id", "createdAt", "updatedAt", "createdBy", "modifiedBy":
			continue
		}
		if !reflect.DeepEqual(before[k], after[k]) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	list := make([]any, len(out))
	for i, k := range out {
		list[i] = k
	}
	return list
}

// actorOf is who makes the change, as resource.Actor stamps modifiedBy.
func actorOf(ctx context.Context) (string, string) {
	p := auth.From(ctx)
	switch {
	case p == nil || (p.User == "" && p.ClientID == ""):
		return resource.PlatformActor, "platform"
	case p.User != "":
		return p.User, "user"
	}
	return p.ClientID, "app"
}

// at is when the change was made: the write's updatedAt; a deletion's
// time is now.
func at(saved store.Doc) any {
	if saved != nil && saved["updatedAt"] != nil {
		return saved["updatedAt"]
	}
	return nowMillis()
}
