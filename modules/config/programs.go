package config

import (
	"context"
	"regexp"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/config/computing"
)

// checksum is an artefact's digest: sha256 or sha512 in lowercase hex.
var checksum = regexp.MustCompile(`^(sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$`)

// Installation statuses.
var installationStatuses = []string{"pending", "installing", "installed", "failed", "removed"}

// Programs declares /programs: the software a customer installs on its
// computing entities, one record per name and version.
func Programs() *resource.Resource {
	return &resource.Resource{
		Plural: computing.ProgramsCollection, Title: "program",
		Fields: []resource.Field{
			{Name: "name", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "version", Type: resource.TString, Required: true, MaxLen: 64, UniqueWithin: "name", Filter: true, Sort: true,
				Description: "unique per program name (1.4.2, 2026.11, ...)"},
			{Name: "description", Type: resource.TString, MaxLen: 2000},
			{Name: "artefactUrl", Type: resource.TString, Required: true, Format: resource.FURL, MaxLen: 2000,
				Description: "where the artefact (package, image, archive) is downloaded from"},
			{Name: "checksum", Type: resource.TString, Required: true, MaxLen: 140, Filter: true,
				Description: "the artefact's digest: sha256:<64 lowercase hex> or sha512:<128 lowercase hex>"},
		},
		Relations: []resource.Relation{
			{Rel: "installations", Title: "where the program is installed", Target: "config/" + computing.InstallationsCollection, Key: "program"},
		},
		Hooks: resource.Hooks{BeforeWrite: checkProgram, BeforeDelete: func(ctx context.Context, s *resource.Service, old store.Doc) error {
			return refuseUsed(ctx, s, "program", old, "program")
		}},
	}
}

func checkProgram(_ context.Context, w *resource.Write) error {
	if c, _ := w.New["checksum"].(string); !checksum.MatchString(c) {
		return resource.Invalid(resource.FieldError(resource.CodeFormat, "checksum",
			"checksum must be sha256:<64 lowercase hex digits> or sha512:<128 lowercase hex digits>"))
	}
	return nil
}

// ComputingInstallations declares /computinginstallations: which program
// is installed on which computing entity, and how far. The specification
// names two installations resources; the marketplace's app installations
// are /appinstallations, so this one carries the computing prefix.
func ComputingInstallations() *resource.Resource {
	return &resource.Resource{
		Plural: computing.InstallationsCollection, Title: "computing installation",
		Fields: []resource.Field{
			{Name: "program", Type: resource.TObjectID, Required: true, Filter: true, Description: "the program (its id)"},
			{Name: "computingEntity", Type: resource.TObjectID, Required: true, Filter: true, Description: "the computing entity (its id)"},
			{Name: "status", Type: resource.TString, Enum: installationStatuses, Default: "pending", Filter: true, Sort: true,
				Description: "pending (asked for), installing, installed, failed, removed: reported by whoever installs (an agent on the machine, a pipeline)"},
			{Name: "installedAt", Type: resource.TDate, Filter: true, Sort: true, Description: "when the program was installed"},
			{Name: "message", Type: resource.TString, MaxLen: 2000, Description: "the installer's last word (why it failed)"},
		},
		Relations: []resource.Relation{
			{Rel: "program", Title: "the program", Target: "config/" + computing.ProgramsCollection, Field: "program"},
			{Rel: "computingEntity", Title: "the computing entity", Target: "config/" + computing.Collection, Field: "computingEntity"},
		},
		// One installation per program and entity.
		Indexes: []store.Index{{Name: "uniq_entity_program", Keys: []store.SortField{{Field: "computingEntity"}, {Field: "program"}}, Unique: true}},
	}
}
