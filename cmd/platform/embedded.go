package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"

	"go.temporal.io/api/enums/v1"

	"platform/cmd/platform/embedded"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/workflows/contract"
)

// embeddedServers are the in-process servers of the embedded defaults.
type embeddedServers struct {
	ferret   *embedded.FerretDB
	temporal *embedded.Temporal
}

// quietLogger keeps the embedded servers' chatter out of the platform's log.
func quietLogger(log *slog.Logger, level slog.Level) *slog.Logger {
	if log == nil {
		return slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	return slog.New(leveled{log.Handler(), level})
}

type leveled struct {
	slog.Handler
	min slog.Level
}

func (l leveled) Enabled(_ context.Context, lv slog.Level) bool { return lv >= l.min }

func (l leveled) WithAttrs(a []slog.Attr) slog.Handler { return leveled{l.Handler.WithAttrs(a), l.min} }

func (l leveled) WithGroup(n string) slog.Handler { return leveled{l.Handler.WithGroup(n), l.min} }

// start brings up whichever servers cfg does not point elsewhere, and fills
// in cfg.MongoURI and cfg.TemporalAddress (and the ports picked for 0).
// An address in use names its setting; a damaged temporal.db stops it.
func (e *embeddedServers) start(cfg *settings.Config, log *slog.Logger, wantStore, wantTemporal bool) error {
	if wantStore {
		f, err := embedded.StartFerretDB(filepath.Join(cfg.DataDir, "store"), cfg.StoreAddr, quietLogger(log, slog.LevelError))
		if err != nil {
			return namedListenError(err)
		}
		e.ferret = f
		cfg.MongoURI = f.URI
		log.Info("embedded store ready", "kind", "ferretdb", "uri", f.URI, "dir", filepath.Join(cfg.DataDir, "store"))
	}
	if wantTemporal {
		if err := e.startTemporal(cfg, log); err != nil {
			e.stop()
			return err
		}
	}
	return nil
}

func (e *embeddedServers) startTemporal(cfg *settings.Config, log *slog.Logger) error {
	port, err := portOrFree(cfg.TemporalPort)
	if err != nil {
		return err
	}
	ui := 0 // none
	if cfg.TemporalUIPort != settings.UIOff {
		if ui, err = portOrFree(cfg.TemporalUIPort); err != nil {
			return err
		}
	}
	dbFile := filepath.Join(cfg.DataDir, "temporal", "temporal.db")
	t, err := embedded.StartTemporal(embedded.TemporalOptions{
		DatabaseFile: dbFile,
		IP:           "127.0.0.1", Port: port, UIPort: ui, Namespace: cfg.TemporalNamespace,
		SearchAttributes: searchAttributes(),
		FIFOQueues:       []string{cfg.TaskQueue}, // its backlog may predate fairness
	}, quietLogger(log, slog.LevelError))
	if errors.Is(err, store.ErrCorrupt) {
		return damaged("Temporal's database "+dbFile, err)
	}
	if err != nil {
		return namedListenError(err)
	}
	e.temporal = t
	cfg.TemporalAddress, cfg.TemporalPort = t.Address, port
	if ui != 0 {
		cfg.TemporalUIPort, cfg.EmbeddedTemporalUI = ui, uiURL(ui)
	}
	log.Info("embedded Temporal ready", "address", t.Address, "ui", uiURL(cfg.TemporalUIPort))
	return nil
}

// portOrFree is port, or for 0 one the kernel says is free.
func portOrFree(port int) (int, error) {
	if port != 0 {
		return port, nil
	}
	return embedded.FreePort("127.0.0.1")
}

func uiURL(port int) string {
	if port <= 0 {
		return "off"
	}
	return "http://localhost:" + itoa(port)
}

// searchAttributes are the contract's search attributes, all keywords.
func searchAttributes() map[string]enums.IndexedValueType {
	attrs := map[string]enums.IndexedValueType{}
	for _, name := range contract.SearchAttributes {
		attrs[name] = enums.INDEXED_VALUE_TYPE_KEYWORD
	}
	return attrs
}

func (e *embeddedServers) stop() {
	if e.temporal != nil {
		e.temporal.Stop()
	}
	if e.ferret != nil {
		e.ferret.Stop()
	}
}
