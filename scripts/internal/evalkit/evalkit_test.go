package evalkit

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinary(t *testing.T) {
	var m Binary
	for _, d := range []struct{ pred, gold bool }{{true, true}, {true, true}, {true, false}, {false, true}, {false, false}, {false, false}} {
		m.Add(d.pred, d.gold)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"Precision", m.Precision(), 2.0 / 3}, {"Recall", m.Recall(), 2.0 / 3}, {"F1", m.F1(), 2.0 / 3},
		{"FPR", m.FPR(), 1.0 / 3}, {"Accuracy", m.Accuracy(), 4.0 / 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if math.Abs(tc.got-tc.want) > 1e-9 {
				t.Fatalf("%s = %v, want %v", tc.name, tc.got, tc.want)
			}
		})
	}
	if (Binary{}).F1() != 0 || (Binary{}).Precision() != 0 {
		t.Fatal("empty metrics are not 0")
	}
}

func TestReliability(t *testing.T) {
	var r Reliability
	for i := range 10 {
		r.Add(0.95, i < 9) // 90% positive at score 0.95
		r.Add(0.05, i < 1) // 10% positive at score 0.05
	}
	if e := r.ECE(); math.Abs(e-0.05) > 1e-9 {
		t.Fatalf("ECE = %v, want 0.05", e)
	}
	var b bytes.Buffer
	r.Write(&b)
	if !strings.Contains(b.String(), "| 0.9-1.0 | 10 | 0.950 | 0.900 |") {
		t.Fatalf("table:\n%s", b.String())
	}
}

func TestRequire(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "langid"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Require(dir, "langid"); err != nil || p != filepath.Join(dir, "langid") {
		t.Fatalf("Require existing = %q, %v", p, err)
	}
	_, err := Require(dir, "pii")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "pii")) || !strings.Contains(err.Error(), "-data") {
		t.Fatalf("Require missing: err = %v, want the path and the -data hint", err)
	}
}

func TestReadCSV(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.csv")
	if err := os.WriteFile(p, []byte("\ufefftext,label\n\"a, \"\"b\"\"\nc\",1\nd,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadCSV(p, ',')
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0]["text"] != "a, \"b\"\nc" || recs[1]["label"] != "0" {
		t.Fatalf("records = %q", recs)
	}
}

func TestWriteFlags(t *testing.T) {
	fs := flag.NewFlagSet("trainer", flag.ContinueOnError)
	fs.Int("epochs", 30, "")
	fs.String("out", "model.bin", "")
	fs.Bool(ShowFlags, false, "")
	if err := fs.Parse([]string{"-epochs", "5", "-show-flags"}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteFlags(&buf, fs); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), `{"epochs":"5","out":"model.bin"}`+"\n"; got != want {
		t.Errorf("WriteFlags = %q, want %q", got, want)
	}
}
