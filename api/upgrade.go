package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// Upgrader serves a route that takes over its connection (the notifier's
// WebSocket at /notifier). Prepare sees the plain request first, with the
// principal of a valid bearer header in its ctx (auth.From) or none: a
// route that also accepts the token in its first message decides itself
// whether a request without one may go on. An error of Prepare renders as
// the envelope like every other answer (400, 429, 503) before anything is
// upgraded; then serve takes over the connection.
type Upgrader interface {
	Prepare(r *http.Request) (serve http.HandlerFunc, err error)
}

// HandleUpgrade adds a GET route at the gateway root served by u, behind
// the rate limits. A bearer header that is sent but refused is a 401 here,
// as on every other route; a missing one is left to u.
func (s *Server) HandleUpgrade(path string, u Upgrader) {
	s.engine.GET(path, s.limit, func(c *gin.Context) {
		if id := s.identify(c); id.sent && id.principal == nil {
			s.authenticate(c)
			return
		}
		serve, err := u.Prepare(c.Request)
		if err != nil {
			s.renderError(c, err)
			return
		}
		serve(c.Writer, c.Request)
	})
}
