package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"platform/cmd/platform/app"
	"platform/kernel/auth"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/identity"
)

// The embedded SQLite store belongs to one process. While `platform dev`
// runs, the admin commands (token, customer create) therefore ask it over
// a unix socket in the data directory (mode 0600: only the owner of the
// data may use it); when it is not running they open the store themselves.

// adminRequest is one admin command.
type adminRequest struct {
	Cmd      string        `json:"cmd"`
	Customer string        `json:"customer,omitempty"`
	Name     string        `json:"name,omitempty"`
	User     string        `json:"user,omitempty"`
	Scopes   []string      `json:"scopes,omitempty"`
	ClientID string        `json:"clientId,omitempty"`
	TTL      time.Duration `json:"ttl,omitempty"`
	Lead     time.Duration `json:"lead,omitempty"` // rotate-signing-key
}

type adminResponse struct {
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// admin performs admin commands against a store.
type admin struct {
	st  store.Store
	cfg *settings.Config
	// app is the wired platform once it is (rotate-master-key needs its
	// vault and Temporal client); nil before and in a command's process.
	app atomic.Pointer[app.App]
}

func (a *admin) do(ctx context.Context, r adminRequest) (string, error) {
	ids := &identity.Service{Store: a.st}
	switch r.Cmd {
	case "customer-create":
		if err := ids.EnsureIndexes(ctx); err != nil {
			return "", err
		}
		c, _, err := ids.EnsureCustomer(ctx, r.Customer, r.Name, []string{"*"})
		if err != nil {
			return "", err
		}
		return c.ID, nil
	case "customer-id":
		c, err := ids.CustomerBySlug(ctx, r.Customer)
		if err != nil {
			return "", fmt.Errorf("customer %q: %w", r.Customer, err)
		}
		return c.ID, nil
	case "token":
		return a.token(ctx, ids, r)
	case "rotate-signing-key":
		return rotateSigningKey(ctx, a.st, r.Lead)
	case "rotate-master-key":
		return a.rotateMasterKey()
	case "counts-repair":
		return repairCounts(ctx, a.st)
	case "backup":
		b, ok := a.st.(interface {
			Backup(ctx context.Context, dest string) error
		})
		if !ok {
			return "", errors.New("this store is backed up by its own tools (mongodump)")
		}
		return r.Name, b.Backup(ctx, r.Name)
	}
	return "", fmt.Errorf("unknown admin command %q", r.Cmd)
}

func (a *admin) token(ctx context.Context, ids *identity.Service, r adminRequest) (string, error) {
	cust, err := ids.CustomerBySlug(ctx, r.Customer)
	if err != nil {
		return "", fmt.Errorf("customer %q: %w", r.Customer, err)
	}
	in := auth.MintInput{Customer: cust.ID, ClientID: r.ClientID, Scopes: r.Scopes, TTL: r.TTL}
	if r.User != "" {
		u, err := ids.UserByEmail(tenant.WithCustomer(ctx, cust.ID), r.User)
		if err != nil {
			return "", fmt.Errorf("user %q of %q: %w", r.User, r.Customer, err)
		}
		in.User = u.ID
	}
	m := &auth.Minter{Keys: auth.NewKeyRing(a.st), Issuer: a.cfg.AuthURL, Audience: a.cfg.GatewayURL}
	tok, _, err := m.Mint(ctx, in)
	return tok, err
}

// serveAdmin answers admin commands on the socket until ctx ends.
func serveAdmin(ctx context.Context, cfg *settings.Config, st store.Store, log *slog.Logger) (*admin, error) {
	path := cfg.AdminSocket()
	_ = os.Remove(path) // a socket left by a killed process
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("admin socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	go func() { <-ctx.Done(); ln.Close() }()
	a := &admin{st: st, cfg: cfg}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go a.serveConn(ctx, conn, log)
		}
	}()
	return a, nil
}

func (a *admin) serveConn(ctx context.Context, conn net.Conn, log *slog.Logger) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	var req adminRequest
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&req); err != nil {
		return
	}
	res, err := a.do(ctx, req)
	out := adminResponse{Result: res}
	if err != nil {
		out.Error = err.Error()
	}
	log.Info("admin command", "cmd", req.Cmd, "customer", req.Customer, "ok", err == nil)
	_ = json.NewEncoder(conn).Encode(out)
}

// runAdmin performs r through a running platform's socket, or directly on
// the store when none is running.
func runAdmin(ctx context.Context, cfg *settings.Config, r adminRequest) (string, error) {
	if cfg.UsesEmbeddedSQLite() {
		if conn, err := net.Dial("unix", cfg.AdminSocket()); err == nil {
			return askSocket(conn, r)
		}
	}
	st, err := openAdminStore(ctx, cfg)
	if err != nil {
		return "", err
	}
	defer st.Close(context.Background())
	return (&admin{st: st, cfg: cfg}).do(ctx, r)
}

func askSocket(conn net.Conn, r adminRequest) (string, error) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if err := json.NewEncoder(conn).Encode(r); err != nil {
		return "", err
	}
	var res adminResponse
	if err := json.NewDecoder(conn).Decode(&res); err != nil {
		return "", fmt.Errorf("admin socket: %w", err)
	}
	if res.Error != "" {
		return "", errors.New(res.Error)
	}
	return strings.TrimSpace(res.Result), nil
}
