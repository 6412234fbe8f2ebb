package runs

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"platform/kernel/store"
	"platform/workflows/contract"
)

// Function is the frozen code of a deployed custom function version.
type Function struct {
	ID        string
	Version   int
	Code      string
	TimeoutMs int
}

// NotDeployedError says why a function cannot run: it does not exist, or
// it was never deployed. Retrying cannot change that.
type NotDeployedError struct{ Reason string }

func (e *NotDeployedError) Error() string { return e.Reason }

// FunctionVersionID is the id of a function version's frozen code.
func FunctionVersionID(function string, version int) string {
	return contract.DerivedID("function-version", function, strconv.Itoa(version))
}

// DeployedFunction loads the frozen code of a function's deployed
// version; a function never deployed or gone is a *NotDeployedError.
func DeployedFunction(ctx context.Context, st store.Store, id string) (Function, error) {
	f, err := st.Collection(Functions).Get(ctx, id, "deployedVersion")
	if errors.Is(err, store.ErrNotFound) {
		return Function{}, &NotDeployedError{Reason: fmt.Sprintf("function %s does not exist", id)}
	}
	if err != nil {
		return Function{}, err
	}
	v := int(store.Int(f["deployedVersion"]))
	if v == 0 {
		return Function{}, &NotDeployedError{Reason: fmt.Sprintf("function %s has not been deployed", id)}
	}
	return LoadFunctionVersion(ctx, st, id, v)
}

// LoadFunctionVersion loads the frozen code of one deployed version.
func LoadFunctionVersion(ctx context.Context, st store.Store, id string, v int) (Function, error) {
	doc, err := st.Collection(FunctionVersions).Get(ctx, FunctionVersionID(id, v))
	if err != nil {
		return Function{}, fmt.Errorf("load version %d of function %s: %w", v, id, err)
	}
	code, _ := doc["code"].(string)
	return Function{ID: id, Version: v, Code: code, TimeoutMs: int(store.Int(doc["timeoutMs"]))}, nil
}
