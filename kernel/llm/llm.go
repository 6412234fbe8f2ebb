// Package llm asks a language model for a completion: a Provider
// interface (the CMS's generate-blocks action sends a prepared prompt
// and validates the JSON it gets back itself) and an implementation of
// the OpenAI chat-completions protocol over HTTP (openai.go), which
// OpenAI, Azure OpenAI-compatible gateways, Mistral, Ollama, vLLM and
// LiteLLM all speak. llmtest is a local server speaking it for tests.
//
// A Request is checked against fixed bounds before anything is sent
// (ErrInvalid), so a tenant's prompt cannot make the platform post
// megabytes or ask for a model name of any length.
//
// Errors tell a caller what to do next: ErrUnauthorized and ErrQuota need
// an operator, a *RetryableError may succeed later (a Temporal activity
// retries it, honouring RetryAfter), a *PermanentError, ErrInvalid and
// ErrTruncated fail again as they are: the request must change. ErrEmpty
// is an answer without text (a content filter, a confused model).
package llm

import "context"

// Provider completes a conversation.
type Provider interface {
	// Complete returns the model's answer to req.
	Complete(ctx context.Context, req Request) (Response, error)
}

// Roles of a Message; the system prompt is Request.System.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Request is one completion asked for.
type Request struct {
	Model       string    // "" means the provider's configured default
	System      string    // the system prompt; "" for none
	Messages    []Message // the conversation, the last one usually the user's
	Temperature *float64  // nil: the provider's default
	MaxTokens   int       // of the answer; 0: the provider's default
	// JSON asks for a JSON object as the answer (response_format
	// json_object). It must be an object, not an array, and the prompt
	// must say "JSON": the providers refuse the request otherwise.
	JSON bool
}

// Message is one turn of the conversation.
type Message struct {
	Role    string `json:"role"` // RoleUser or RoleAssistant
	Content string `json:"content"`
}

// Response is the model's answer.
type Response struct {
	Text             string
	Model            string // as the provider names it, often with a version
	FinishReason     string // "stop" when the model ended its answer itself
	PromptTokens     int
	CompletionTokens int
}
