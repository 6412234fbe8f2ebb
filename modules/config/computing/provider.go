package computing

import (
	"context"
	"errors"
)

// Provider makes the moves at the cloud, container host or cron service
// that runs an entity. A move is asked for and then watched: clouds take
// seconds to minutes to start or stop a machine.
type Provider interface {
	// Request asks for the move and answers the machine as the provider
	// has it right after (usually in a transitional state).
	Request(ctx context.Context, m Move) (Machine, error)
	// Machine reads the machine's current state.
	Machine(ctx context.Context, ref Ref) (Machine, error)
}

// Ref names a machine at the provider.
type Ref struct {
	// ID is the entity's instanceId, or its record id when it has none.
	ID string
	// Type is the entity type (vm-aws, vm-gcp, container, cron): the
	// provider behind the protocol routes by it.
	Type string
	// Customer is the customer the machine belongs to.
	Customer string
}

// Move is one action on a machine.
type Move struct {
	Ref
	Action string // start, stop or terminate
}

// Machine is a machine as the provider has it.
type Machine struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	IPAddress string `json:"ipAddress,omitempty"`
}

// Provider-side states: the stable ones are the entity states (running,
// stopped, terminated); the others are moves under way.
const (
	Pending      = "pending"       // starting
	Stopping     = "stopping"      // stopping
	ShuttingDown = "shutting-down" // terminating
)

// Transitional reports whether the provider state is a move under way.
func Transitional(state string) bool {
	return state == Pending || state == Stopping || state == ShuttingDown
}

// ErrRefused is a move the provider refused for the machine's state (a
// start of a terminated machine): asking again does not help.
var ErrRefused = errors.New("computing: the provider refused the move")

// ErrUnknownMachine is a machine the provider does not know.
var ErrUnknownMachine = errors.New("computing: the provider does not know the machine")
