package config

import (
	"context"
	"net/netip"
	"regexp"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/config/computing"
)

// Bounds of an entity's free values.
const (
	MaxTags   = 50
	MaxTagLen = 64
)

// instanceID is a provider's machine id: an EC2 i-0abc..., a GCE name or
// numeric id, a container id, a cron box's name.
var instanceID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]*$`)

// ComputingEntities declares /computingentities: the machines,
// containers and cron boxes of a customer. The state field is named after
// the cloud (awsState, gcpState; state for containers and cron boxes),
// read-only to clients and moved by the start, stop and terminate
// actions, each run as a workflow at the provider.
func ComputingEntities(d Deps) *resource.Resource {
	h := &computingHandlers{d: d.Computing}
	stateDesc := "set by the platform only; moved by the start, stop and terminate actions: stopped when created, running after start, stopped after stop, terminated (final) after terminate"
	stateField := func(name, of string) resource.Field {
		return resource.Field{Name: name, Type: resource.TString, Enum: computing.States, ReadOnly: true, Filter: true, Sort: true,
			Description: "the provider state of " + of + "; " + stateDesc}
	}
	return &resource.Resource{
		Plural: computing.Collection, Title: "computing entity",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Unique: true, Filter: true, Sort: true, Description: "unique per customer"},
			{Name: computing.FieldType, Type: resource.TString, Required: true, Enum: computing.Types, Filter: true, Sort: true,
				Description: "vm-aws (an Amazon Web Services EC2 instance), vm-gcp (a Google Cloud Compute Engine instance), container or cron; it cannot change after create"},
			stateField(computing.StateAWS, "a vm-aws entity"),
			stateField(computing.StateGCP, "a vm-gcp entity"),
			stateField(computing.StateGeneric, "a container or cron entity"),
			{Name: "ipAddress", Type: resource.TString, MaxLen: 64, Filter: true, Sort: true,
				Description: "an IPv4 or IPv6 address without zone (stored in its canonical form: 2001:DB8::1 becomes 2001:db8::1)"},
			{Name: "tags", Type: resource.TArray, Items: &resource.Field{Type: resource.TString, MaxLen: MaxTagLen}, MaxItems: MaxTags, Filter: true,
				Description: "routing or cost-centre labels: distinct, non-blank, at most 64 characters each, at most 50"},
			{Name: computing.FieldInstanceID, Type: resource.TString, MaxLen: 128, Filter: true,
				Description: "the provider's id of the machine (an EC2 instance id, a GCE instance name); when absent the record's id names it at the provider"},
			{Name: computing.FieldPendingAction, Type: resource.TString, Enum: computing.Actions, ReadOnly: true, Filter: true,
				Description: "the action under way (start, stop or terminate) until its workflow lands it; absent otherwise"},
			{Name: computing.FieldWorkflowID, Type: resource.TString, ReadOnly: true, Filter: true,
				Description: "the Temporal workflow of the latest action (the one under way, or the last finished)"},
			{Name: computing.FieldLastAction, Type: resource.TObject, ReadOnly: true, Description: "the outcome of the last finished action", Fields: []resource.Field{
				{Name: "name", Type: resource.TString, Enum: computing.Actions},
				{Name: "workflowId", Type: resource.TString},
				{Name: "outcome", Type: resource.TString, Enum: []string{"done", "failed"}},
				{Name: "failure", Type: resource.TString, Description: "why the action failed"},
				{Name: "finishedAt", Type: resource.TDate},
			}},
		},
		Actions: []resource.Action{
			h.action(computing.Start, "start the entity (stopped → running); answers 202 with the workflow id in workflowId", RightComputingStart),
			h.action(computing.Stop, "stop the entity (running → stopped); answers 202 with the workflow id in workflowId", RightComputingStop),
			h.action(computing.Terminate, "terminate the entity for good (running or stopped → terminated); answers 202 with the workflow id in workflowId", RightComputingTerminate),
		},
		Events: []string{computing.EventStarted, computing.EventStopped, computing.EventTerminated, computing.EventFailed},
		Relations: []resource.Relation{
			{Rel: "installations", Title: "the programs installed on the entity", Target: "config/" + computing.InstallationsCollection, Key: "computingEntity"},
		},
		Hooks: resource.Hooks{BeforeWrite: checkEntity, BeforeDelete: h.beforeDelete},
	}
}

// checkEntity validates the address and tags, keeps the type, and gives a
// new entity its state field: stopped.
func checkEntity(_ context.Context, w *resource.Write) error {
	if p := str(w.Old[computing.FieldPendingAction]); p != "" && w.Old[computing.FieldInstanceID] != w.New[computing.FieldInstanceID] {
		return resource.Conflict(computing.FieldInstanceID, "a %s is under way on this machine; change instanceId once it has landed", p)
	}
	var errs []resource.ErrorEntry
	t, _ := w.New[computing.FieldType].(string)
	if w.Old != nil && w.Old[computing.FieldType] != t {
		errs = append(errs, resource.FieldError(resource.CodeInvalid, computing.FieldType,
			"type cannot change (it was %v): an entity's provider and state field follow from it; create a new entity", w.Old[computing.FieldType]))
	}
	if ip, ok := w.New["ipAddress"].(string); ok {
		canon, e := canonicalIP(ip)
		if e != nil {
			errs = append(errs, *e)
		}
		w.New["ipAddress"] = canon
	}
	errs = append(errs, checkTags(w.New["tags"])...)
	if inst, ok := w.New[computing.FieldInstanceID].(string); ok && !instanceID.MatchString(inst) {
		errs = append(errs, resource.FieldError(resource.CodeFormat, computing.FieldInstanceID,
			"instanceId is letters, digits and . _ : / - starting with a letter or digit, such as i-0abc123 or projects/p/zones/z/instances/web-1"))
	}
	if len(errs) > 0 {
		return resource.Invalid(errs...)
	}
	if w.Old == nil {
		w.New[computing.StateField(t)] = computing.Stopped
	}
	return nil
}

func canonicalIP(s string) (string, *resource.ErrorEntry) {
	addr, err := netip.ParseAddr(s)
	if err != nil || addr.Zone() != "" {
		e := resource.FieldError(resource.CodeFormat, "ipAddress",
			"ipAddress must be an IPv4 address (192.0.2.10) or an IPv6 address (2001:db8::10) without a zone; %q is neither", s)
		return s, &e
	}
	return addr.String(), nil
}

func checkTags(v any) []resource.ErrorEntry {
	tags, _ := v.([]any)
	seen := map[string]bool{}
	for _, t := range tags {
		s, _ := t.(string)
		switch {
		case strings.TrimSpace(s) == "":
			return []resource.ErrorEntry{resource.FieldError(resource.CodeInvalid, "tags", "a tag cannot be blank")}
		case seen[s]:
			return []resource.ErrorEntry{resource.FieldError(resource.CodeInvalid, "tags", "the tag %q is listed twice", s)}
		}
		seen[s] = true
	}
	return nil
}

// beforeDelete keeps an entity whose action is under way (its workflow
// would settle a record that is gone) or that has installations.
func (h *computingHandlers) beforeDelete(ctx context.Context, s *resource.Service, old store.Doc) error {
	if p, _ := old[computing.FieldPendingAction].(string); p != "" {
		return resource.Conflict(computing.FieldPendingAction, "a %s is under way (workflow %v); delete the entity once it has landed", p, old[computing.FieldWorkflowID])
	}
	return refuseUsed(ctx, s, "computingEntity", old, "computing entity")
}

// refuseUsed refuses to delete a record installations still name.
func refuseUsed(ctx context.Context, s *resource.Service, field string, old store.Doc, title string) error {
	docs, err := s.Store.Collection(computing.InstallationsCollection).Find(ctx, store.FindOptions{Filter: query.Eq(field, old["_id"]), Limit: 1, Fields: []string{"_id"}})
	if err != nil {
		return resource.Unavailable("the installations could not be read; try again").WithCause(err)
	}
	if len(docs) > 0 {
		return resource.Conflict("_id", "the %s has installations (e.g. %v); delete them first", title, docs[0]["_id"])
	}
	return nil
}
