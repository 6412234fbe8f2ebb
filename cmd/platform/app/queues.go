package app

import (
	"platform/kernel/settings"
	"platform/worker"
	"platform/workflows/contract"
)

// TaskQueues lists the task queues a worker process polls, one per kind of
// work, named after the base task queue (PLATFORM_TASK_QUEUE); the base
// queue first.
func TaskQueues(base string) []string {
	out := make([]string, len(contract.Kinds))
	for i, k := range contract.Kinds {
		out[i] = contract.Queue(base, k)
	}
	return out
}

// workers are the worker process's Temporal workers: one per kind of work,
// each on its kind's queue with its own slots.
func (a *App) workers(taskQueue string, acts worker.Activities) *worker.Group {
	return worker.NewGroup(a.Temporal, taskQueue, a.slots(), acts)
}

// slots are each kind's bounds from the settings; a configuration built
// without settings.Load (a test's) has the defaults.
func (a *App) slots() map[contract.Kind]worker.Slots {
	out := map[contract.Kind]worker.Slots{}
	for _, k := range contract.Kinds {
		s, ok := a.Config.Slots[k]
		if !ok {
			s = settings.DefaultSlots[k]
		}
		out[k] = worker.Slots(s)
	}
	return out
}
