package credentials

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
)

// MasterKeyFile is the file in the data directory that holds the generated
// master key of an installation on the embedded store.
const MasterKeyFile = "master.key"

// MasterKeyPath is where the embedded installation keeps its master key.
func MasterKeyPath(cfg *settings.Config) string { return filepath.Join(cfg.DataDir, MasterKeyFile) }

// LoadOrCreateMasterKey returns the installation's master key:
//   - PLATFORM_MASTER_KEY (cfg.MasterKey) when set;
//   - else, when the store is embedded (no MONGODB_URI), <DataDir>/master.key,
//     generated on first use (mode 0600, created atomically, never replaced);
//   - else an error wrapping ErrNoMasterKey: processes that share a real
//     MongoDB must share one configured key, which no single process can
//     generate for the others.
//
// The key file lives beside the database, not in it, so a copy of the
// database alone does not reveal the credentials.
func LoadOrCreateMasterKey(cfg *settings.Config) ([]byte, error) {
	key, generated, err := LoadMasterKey(cfg)
	if err != nil || !generated {
		return key, err
	}
	return createKeyFile(MasterKeyPath(cfg), key)
}

// LoadMasterKey is LoadOrCreateMasterKey without writing anything: for the
// embedded store without a key file it answers a new key and generated =
// true, which SaveMasterKey writes once the store accepted it (Check), so
// a refused start leaves no key file behind.
func LoadMasterKey(cfg *settings.Config) (key []byte, generated bool, err error) {
	if cfg.MasterKey != "" {
		key, err := ParseMasterKey(cfg.MasterKey)
		if err != nil {
			return nil, false, fmt.Errorf("PLATFORM_MASTER_KEY: %w", err)
		}
		return key, false, nil
	}
	if cfg.MongoURI != "" {
		return nil, false, fmt.Errorf("%w (MONGODB_URI is set: a key is generated only for the embedded store)", ErrNoMasterKey)
	}
	key, err = readKeyFile(MasterKeyPath(cfg))
	if errors.Is(err, fs.ErrNotExist) {
		return NewMasterKey(), true, nil
	}
	return key, false, err
}

// SaveMasterKey writes a key LoadMasterKey generated to <data>/master.key.
// It fails when another process wrote a different key meanwhile.
func SaveMasterKey(cfg *settings.Config, key []byte) error {
	got, err := createKeyFile(MasterKeyPath(cfg), key)
	if err == nil && !bytes.Equal(got, key) {
		err = fmt.Errorf("master key: another process created %s meanwhile; start again", MasterKeyPath(cfg))
	}
	return err
}

// PreviousKeyFile holds, beside MasterKeyFile, the key the embedded
// installation sealed with before a rotation: accepted for opening until
// the rotation finished and the operator removed it.
const PreviousKeyFile = "master.key.previous"

// FromConfig returns the vault of cfg's master key (LoadOrCreateMasterKey)
// that also opens values sealed under the accepted keys
// (AcceptedMasterKeys). Without a key it returns nil and an error
// wrapping ErrNoMasterKey.
func FromConfig(cfg *settings.Config) (*Vault, error) {
	key, err := LoadOrCreateMasterKey(cfg)
	if err != nil {
		return nil, err
	}
	accept, err := AcceptedMasterKeys(cfg)
	if err != nil {
		return nil, err
	}
	return NewVault(key, accept...)
}

// AcceptedMasterKeys are the keys a vault opens with besides its own:
// PLATFORM_MASTER_KEY_ACCEPT, and for the embedded installation's own key
// file <data>/master.key.previous when present.
func AcceptedMasterKeys(cfg *settings.Config) ([][]byte, error) {
	var out [][]byte
	for _, s := range cfg.MasterKeyAccept {
		k, err := ParseMasterKey(s)
		if err != nil {
			return nil, fmt.Errorf("PLATFORM_MASTER_KEY_ACCEPT: %w", err)
		}
		out = append(out, k)
	}
	if cfg.MasterKey != "" || cfg.MongoURI != "" {
		return out, nil
	}
	k, err := readKeyFile(filepath.Join(cfg.DataDir, PreviousKeyFile))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	return append(out, k), nil
}

func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := ParseMasterKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("master key file %s: %w", path, err)
	}
	return key, nil
}

// createKeyFile writes a new key to a temporary file, syncs it, and links
// it into place: the key file appears complete or not at all, and of two
// processes starting at once the second reads the first one's key.
func createKeyFile(path string, key []byte) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".master.key-*") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(EncodeMasterKey(key) + "\n")
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("master key: write %s: %w", tmp.Name(), err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readKeyFile(path) // another process created it first
		}
		return nil, fmt.Errorf("master key: create %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the new name durable
		_ = d.Close()
	}
	return key, nil
}

// KeysCollection (global, not per customer) remembers the id of the master
// key the stored credentials are sealed under.
const KeysCollection = "credentialkeys"

const keysDoc = "master"

// CheckStore refuses a master key other than the one the store's sealed
// values are sealed under (Check with a configured key's source).
func (v *Vault) CheckStore(ctx context.Context, st store.Store) error {
	_, err := v.Check(ctx, st, KeyCheck{})
	return err
}

// wrongKey is a master key the store refuses: a bad setting, which no
// retry fixes (start-up stops at once, exit code 2). The key is not shown.
func wrongKey(reason string) error {
	return &settings.InvalidError{Env: "PLATFORM_MASTER_KEY", Flag: "master-key", Value: "(not shown)", Reason: reason}
}

// NoteSealed records in the store, once per process, that credentials are
// sealed under this vault's key, so CheckStore refuses any other key from
// then on. It fails when the store names a key the vault does not hold (a
// process with a different key took over): then nothing must be sealed.
// During a rotation the store names the old key until the rotation
// finishes (MarkRotated), which this vault holds too.
func (v *Vault) NoteSealed(ctx context.Context, st store.Store) error {
	if v == nil {
		return ErrNoMasterKey
	}
	if v.noted.Load() {
		return nil
	}
	_, err := st.Global(KeysCollection).Update(ctx, query.AllOf(query.ID(keysDoc), heldKey(v)),
		store.Update{Set: store.Doc{"sealed": true}})
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("the store's credentials use another master key than this process (id %s); every api and worker process needs the same key", v.KeyID())
	}
	if err != nil {
		return err
	}
	v.noted.Store(true)
	return nil
}

// heldKey matches the key document when it names a key the vault holds.
func heldKey(v *Vault) query.Expr {
	ids := v.KeyIDs()
	vals := make([]any, len(ids))
	for i, id := range ids {
		vals[i] = id
	}
	return query.Field{Path: "keyId", Conds: []query.Cond{query.In{Values: vals}}}
}

// MarkRotated records that every sealed value is now under the vault's
// current key (the last step of a rotation): from then on a process
// holding only the old key is refused at start-up. It fails when the
// store names a key the vault does not hold.
func (v *Vault) MarkRotated(ctx context.Context, st store.Store) error {
	if v == nil {
		return ErrNoMasterKey
	}
	coll := st.Global(KeysCollection)
	doc, err := coll.Get(ctx, keysDoc)
	if err != nil {
		return fmt.Errorf("credential key record: %w", err)
	}
	previous, _ := doc["keyId"].(string)
	if previous == v.KeyID() {
		return nil
	}
	_, err = coll.Update(ctx, query.AllOf(query.ID(keysDoc), query.Eq("keyId", previous), heldKey(v)), store.Update{Set: store.Doc{
		"keyId": v.KeyID(), "previousKeyId": previous, "rotatedAt": time.Now().UTC().Truncate(time.Millisecond), "sealed": true}})
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("the store names master key %s, which this process does not hold; every api and worker process needs the same keys", previous)
	}
	return err
}

// PreviousKeyPath is where the embedded installation keeps the key it
// sealed with before a rotation.
func PreviousKeyPath(cfg *settings.Config) string { return filepath.Join(cfg.DataDir, PreviousKeyFile) }

// InstallNextMasterKey starts a rotation of the embedded installation's
// key file: the key in master.key moves to master.key.previous (still
// accepted for opening) and next takes its place. Each file is written
// complete or not at all; a start-up between the two steps finds the old
// key in both files and simply seals with it. It refuses while a previous
// key file exists (a rotation not finished).
func InstallNextMasterKey(cfg *settings.Config, next []byte) error {
	if cfg.MasterKey != "" || cfg.MongoURI != "" {
		return errors.New("the master key is configured (PLATFORM_MASTER_KEY): rotate it by configuration, see docs/config-keys.md")
	}
	current, err := readKeyFile(MasterKeyPath(cfg))
	if err != nil {
		return err
	}
	if err := writeKeyFile(PreviousKeyPath(cfg), current, false); err != nil {
		return err
	}
	return writeKeyFile(MasterKeyPath(cfg), next, true)
}

// writeKeyFile writes key to path through a synced temporary file:
// linked (failing when path exists) or, with replace, renamed over it.
func writeKeyFile(path string, key []byte, replace bool) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".master.key-*") // mode 0600
	if err != nil {
		return fmt.Errorf("master key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(EncodeMasterKey(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && replace {
		err = os.Rename(tmp.Name(), path)
	} else if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("master key: write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
