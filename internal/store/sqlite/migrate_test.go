package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

func TestMigrationsMatchVersion(t *testing.T) {
	if len(migrations) != schemaVersion {
		t.Fatalf("%d migrations, schema version %d", len(migrations), schemaVersion)
	}
}

// TestMigrateFromVersion1 opens a database written before the dashboard existed: its accounts
// and keys stay, and the dashboard's tables and the keys' last-used day appear.
func TestMigrateFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(append([]string{}, schema...),
		`INSERT INTO accounts VALUES ('acct-1', 'local', 'standard', 600, 1000, 0, '', 0)`,
		`INSERT INTO api_keys VALUES ('key-1', 'acct-1', 'h1', 'sluice_live_abcd', 'wxyz', 0, NULL)`,
		`PRAGMA user_version = 1`) {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open a version 1 database: %v", err)
	}
	defer s.Close()
	ctx := t.Context()
	if err := s.MarkKeyUsed(ctx, "h1", "2026-11-22"); err != nil {
		t.Fatal(err)
	}
	k, err := s.KeyByHash(ctx, "h1")
	if err != nil || k.Account != "acct-1" || k.LastUsed != "2026-11-22" {
		t.Fatalf("KeyByHash = %+v, %v", k, err)
	}
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	if err := s.CreateLink(ctx, store.SignInLink{Hash: "l1", Account: "acct-1", CreatedAt: now, Expires: now.Add(time.Minute)}); err != nil {
		t.Fatalf("CreateLink after migration: %v", err)
	}
	var v int
	if err := s.r.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, schemaVersion)
	}
}
