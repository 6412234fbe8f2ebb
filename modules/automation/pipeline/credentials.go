package pipeline

import (
	"slices"

	"platform/kernel/template"
	"platform/workflows/contract"
)

// StepCredentials lists the credentials a step's templates read
// ({{secrets.<name>...}}), sorted and without repeats. A step is given
// the clear values of these credentials and of no other.
func StepCredentials(s *contract.Step) []string {
	refs, err := template.Refs(s.Templated())
	if err != nil {
		return nil // validation refuses such a step before it is stored
	}
	var names []string
	for _, r := range refs {
		if r.Root() == contract.RootSecrets && len(r.Parts) >= 2 {
			names = append(names, r.Parts[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// CredentialRefs lists the credentials any step of d reads, sorted and
// without repeats.
func CredentialRefs(d *contract.Definition) []string {
	var names []string
	for i := range d.Steps {
		names = append(names, StepCredentials(&d.Steps[i])...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
