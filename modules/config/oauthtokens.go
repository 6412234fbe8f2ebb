package config

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"platform/api"
	"platform/kernel/auth"
	"platform/kernel/resource"
	"platform/modules/audit/trail"
	"platform/modules/oauth/families"
)

// Rights of /oauthtokens. It is no stored resource (the OAuth service keeps
// the tokens), so its rights are declared as grants of /apikeys, where the
// scope catalog finds them.
const (
	RightViewOAuthTokens   = "config.oauthtokens.view"
	RightRevokeOAuthTokens = "config.oauthtokens.revoke"
	// AuditRevokeOAuthTokens is the audit action of a revoke.
	AuditRevokeOAuthTokens = "config.oauthtokens.revoke"
)

const oauthTokensPath = "/oauthtokens"

// oauthTokenGrants are the rights of /oauthtokens for the scope catalog.
var oauthTokenGrants = []resource.Grant{
	{Right: RightViewOAuthTokens, Title: "list the OAuth token families issued to apps (never the tokens)"},
	{Right: RightRevokeOAuthTokens, Title: "revoke an OAuth token family"},
}

// oauthTokenRoutes serves the token families the OAuth service issued to
// apps for the caller's customer: listed without token values, revocable.
func oauthTokenRoutes(d Deps) func(r *api.ModuleRouter) {
	h := &tokenHandlers{d: d}
	return func(r *api.ModuleRouter) {
		r.Handle(http.MethodGet, oauthTokensPath, RightViewOAuthTokens, h.list)
		r.Handle(http.MethodGet, oauthTokensPath+"/:id", RightViewOAuthTokens, h.get)
		r.Handle(http.MethodPost, oauthTokensPath+"/:id/actions/revoke", RightRevokeOAuthTokens, h.revoke)
	}
}

type tokenHandlers struct{ d Deps }

func (h *tokenHandlers) source() (families.Source, error) {
	if h.d.OAuthTokens == nil {
		return nil, resource.Unavailable("the OAuth service is not available in this process")
	}
	return h.d.OAuthTokens, nil
}

func (h *tokenHandlers) list(r *api.Request) (*api.Response, error) {
	src, err := h.source()
	if err != nil {
		return nil, err
	}
	f, page, limit, err := tokenQuery(r)
	if err != nil {
		return nil, err
	}
	count, err := api.CountParam(r.Query)
	if err != nil {
		return nil, err
	}
	all, err := src.Families(r.Ctx, r.Principal.Customer, f)
	if err != nil {
		return nil, err
	}
	total := int64(len(all))
	from := min((page-1)*limit, len(all))
	resp := &api.Response{Status: http.StatusOK, Payload: all[from:min(from+limit, len(all))], Page: page, Limit: limit}
	if count {
		resp.Total = &total
	}
	return resp, nil
}

// tokenQuery reads the list's filters and page.
func tokenQuery(r *api.Request) (families.Filter, int, int, error) {
	f := families.Filter{ClientID: r.Query.Get("clientId"), User: r.Query.Get("user")}
	if v := r.Query.Get("active"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return f, 0, 0, resource.Malformed(resource.CodeBadQuery, "active", "active is true or false")
		}
		f.Active = &b
	}
	page, err := intParam(r, "page", 1, 1_000_000)
	if err != nil {
		return f, 0, 0, err
	}
	limit, err := intParam(r, "limit", 25, 500)
	return f, page, limit, err
}

func intParam(r *api.Request, name string, def, maxVal int) (int, error) {
	v := r.Query.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxVal {
		return 0, resource.Malformed(resource.CodeBadQuery, name, "%s is a whole number from 1 to %d", name, maxVal)
	}
	return n, nil
}

func (h *tokenHandlers) get(r *api.Request) (*api.Response, error) {
	src, err := h.source()
	if err != nil {
		return nil, err
	}
	f, err := src.Family(r.Ctx, r.Principal.Customer, r.Param("id"))
	if err != nil {
		return nil, familyError(err)
	}
	return &api.Response{Status: http.StatusOK, Payload: f}, nil
}

// revoke ends every token of the family and writes it to the audit trail
// (the tokens are the OAuth service's records, not the customer's, so no
// record event is emitted).
func (h *tokenHandlers) revoke(r *api.Request) (*api.Response, error) {
	src, err := h.source()
	if err != nil {
		return nil, err
	}
	id := r.Param("id")
	f, err := src.RevokeFamily(r.Ctx, r.Principal.Customer, id)
	if err != nil {
		return nil, familyError(err)
	}
	if h.d.Audit != nil {
		trail.Logged(r.Ctx, h.d.Audit, slog.Default(), revokeRecord(r.Principal, f))
	}
	return &api.Response{Status: http.StatusOK, Payload: f}, nil
}

func revokeRecord(p *auth.Principal, f *families.Family) trail.Record {
	rec := trail.Record{Action: AuditRevokeOAuthTokens, Target: f.ID, Outcome: trail.Success, Actor: resource.PlatformActor, ActorType: "user",
		Details: map[string]any{"clientId": f.ClientID, "user": f.User}}
	switch {
	case p.User != "":
		rec.Actor = p.User
	case p.ClientID != "":
		rec.Actor, rec.ActorType = p.ClientID, "app"
	}
	return rec
}

func familyError(err error) error {
	if errors.Is(err, families.ErrNotFound) {
		return resource.NotFound("OAuth token family")
	}
	return err
}

// oauthTokenPaths describes the routes for the module's OpenAPI document.
func oauthTokenPaths() map[string]any {
	str := map[string]any{"type": "string"}
	qp := func(name, typ, desc string) map[string]any {
		return map[string]any{"name": name, "in": "query", "schema": map[string]any{"type": typ}, "description": desc}
	}
	list := []any{qp("clientId", "string", "only the families of this app"), qp("user", "string", "only the families of this user"),
		qp("active", "boolean", "only families with (true) or without (false) a working token"), qp("count", "boolean", "add meta.total"),
		map[string]any{"name": "limit", "in": "query", "schema": map[string]any{"type": "integer", "minimum": 1, "maximum": 500, "default": 25}},
		map[string]any{"name": "page", "in": "query", "schema": map[string]any{"type": "integer", "minimum": 1, "maximum": 1_000_000, "default": 1}}}
	idParam := map[string]any{"name": "id", "in": "path", "required": true, "schema": str, "description": "the family id"}
	desc := "Token families the OAuth service issued to apps for the caller's customer: every access and refresh token rotated from one grant, " +
		"with the app, user, scopes and times, never a token value or signature. Newest grant first; the newest 5,000 tokens of each kind are read. docs/config-keys.md."
	revoke := api.Operation("config.oauthtokens.revoke", "oauthtokens", "Revoke a token family",
		"Ends every access and refresh token of the family, as /oauth/revoke does: the API refuses its access tokens at their next request "+
			"(other replicas within 1 s). Audited. Right config.oauthtokens.revoke.", []any{idParam}, familySchema())
	revoke["requestBody"] = map[string]any{"required": false, "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object", "maxProperties": 0}}}}
	return map[string]any{
		oauthTokensPath: map[string]any{"get": api.Operation("config.oauthtokens.list", "oauthtokens", "List OAuth token families", desc+" Right config.oauthtokens.view.",
			list, map[string]any{"type": "array", "items": familySchema()})},
		oauthTokensPath + "/{id}": map[string]any{"get": api.Operation("config.oauthtokens.get", "oauthtokens", "Get an OAuth token family",
			"One family of the caller's customer (404 for another customer's). Right config.oauthtokens.view.", []any{idParam}, familySchema())},
		oauthTokensPath + "/{id}/actions/revoke": map[string]any{"post": revoke},
	}
}

func familySchema() map[string]any {
	str := map[string]any{"type": "string"}
	date := map[string]any{"type": "string", "format": "date-time"}
	count := map[string]any{"type": "integer", "minimum": 0}
	return map[string]any{"type": "object", "additionalProperties": false,
		"required": []any{"_id", "clientId", "scopes", "issuedAt", "lastIssuedAt", "expiresAt", "accessTokens", "refreshTokens", "active"},
		"properties": map[string]any{
			"_id": str, "clientId": str, "user": str, "scopes": map[string]any{"type": "array", "items": str},
			"issuedAt": date, "lastIssuedAt": date, "expiresAt": date, "revokedAt": date,
			"accessTokens": count, "refreshTokens": count, "active": map[string]any{"type": "boolean"},
		}}
}
