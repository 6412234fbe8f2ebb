package resource

import (
	"context"
	"sync"
)

// Warnings collects what a successful call should tell its caller besides
// its answer (the API renders them as meta.warnings): a saved webhook URL
// the outbound guard will refuse, say. Entries are ErrorEntry-shaped, with
// a machine code, a message and the field.
type Warnings struct {
	mu   sync.Mutex
	list []ErrorEntry
}

type warningsKey struct{}

// CollectWarnings returns ctx carrying a new collector (the API does this
// for every request).
func CollectWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{}
	return context.WithValue(ctx, warningsKey{}, w), w
}

// Warn adds a warning to the caller's answer; without a collector (a
// workflow, a test calling the service) it is dropped.
func Warn(ctx context.Context, e ErrorEntry) {
	if w, ok := ctx.Value(warningsKey{}).(*Warnings); ok {
		w.mu.Lock()
		w.list = append(w.list, e)
		w.mu.Unlock()
	}
}

// List is what was collected (nil for none).
func (w *Warnings) List() []ErrorEntry {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]ErrorEntry(nil), w.list...)
}
