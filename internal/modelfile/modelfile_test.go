package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

type meta struct {
	Command string            `json:"command"`
	Lists   map[string]string `json:"lists,omitempty"`
}

func sample(t testing.TB) []byte {
	t.Helper()
	b, err := Encode("sluice-test-1", meta{Command: "go run ./scripts/train/test", Lists: map[string]string{"b.txt": "2", "a.txt": "1"}},
		Section{"weights", []byte{1, 2, 3}}, Section{"empty", nil}, Section{"text", []byte("hello")})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	b := sample(t)
	if again := sample(t); !bytes.Equal(b, again) {
		t.Fatal("Encode is not deterministic")
	}
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := f.UnmarshalMeta(&m); err != nil || f.ID != "sluice-test-1" || m.Command != "go run ./scripts/train/test" || m.Lists["a.txt"] != "1" {
		t.Fatalf("decoded %+v, meta %+v, %v", f, m, err)
	}
	for name, want := range map[string]string{"weights": "\x01\x02\x03", "empty": "", "text": "hello"} {
		if got, err := f.Section(name); err != nil || string(got) != want {
			t.Errorf("Section(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := f.Section("nope"); err == nil {
		t.Error("a missing section was found")
	}
	if names := []string{f.Sections[0].Name, f.Sections[1].Name, f.Sections[2].Name}; strings.Join(names, ",") != "weights,empty,text" {
		t.Errorf("section order %v", names)
	}
}

func TestDecodeRefuses(t *testing.T) {
	good := sample(t)
	body := func(edit func([]byte) []byte) []byte { return edit(append([]byte{}, good...)) }
	var version2 []byte
	version2 = append(version2, Magic...)
	version2 = binary.AppendUvarint(version2, 2)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"Empty", nil},
		{"NoMagic", append([]byte("SLMX"), good[4:]...)},
		{"Truncated", good[:len(good)-1]},
		{"OtherVersion", append(version2, good[5:]...)},
		{"TrailingBytes", body(func(b []byte) []byte { return append(b, 0) })},
		{"CutSection", body(func(b []byte) []byte { return b[:len(b)-2] })},
		{"LengthPastEnd", body(func(b []byte) []byte { return append(b[:len(b)-6], 0xff, 0xff, 0xff, 0x0f, 'h', 'i') })},
		{"OldFormat", []byte("SLI2\x00\x01")},
		{"GzipOfAnything", []byte{0x1f, 0x8b, 8, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(tc.in); !errors.Is(err, ErrFormat) {
				t.Fatalf("Decode = %v, want ErrFormat", err)
			}
		})
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		id       string
		meta     any
		sections []Section
	}{
		{"NoID", "", meta{}, nil},
		{"LongID", strings.Repeat("x", MaxID+1), meta{}, nil},
		{"MetaNotObject", "m", []int{1}, nil},
		{"MetaNotJSON", "m", func() {}, nil},
		{"EmptySectionName", "m", meta{}, []Section{{"", nil}}},
		{"LongSectionName", "m", meta{}, []Section{{strings.Repeat("s", MaxName+1), nil}}},
		{"RepeatedSection", "m", meta{}, []Section{{"a", nil}, {"a", nil}}},
		{"TooManySections", "m", meta{}, make([]Section, MaxSections+1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Encode(tc.id, tc.meta, tc.sections...); err == nil {
				t.Fatal("Encode succeeded")
			}
		})
	}
}

func TestCheckLists(t *testing.T) {
	lists := map[string][]byte{"groups.txt": []byte("a\nb\n"), "curses.txt": []byte("x\n")}
	recorded := ListHashes(lists)
	if err := CheckLists(recorded, lists); err != nil {
		t.Fatalf("the lists a model was trained with: %v", err)
	}
	for _, tc := range []struct {
		name  string
		lists map[string][]byte
		want  string
	}{
		{"Edited", map[string][]byte{"groups.txt": []byte("a\nb\nc\n"), "curses.txt": []byte("x\n")}, "groups.txt has SHA-256"},
		{"Missing", map[string][]byte{"groups.txt": []byte("a\nb\n")}, "curses.txt is missing"},
		{"Added", map[string][]byte{"groups.txt": []byte("a\nb\n"), "curses.txt": []byte("x\n"), "new.txt": nil}, "new.txt is not one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLists(recorded, tc.lists)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckLists = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// FuzzDecode: Decode never panics and never reads past its input; whatever it accepts encodes
// back to exactly the input.
func FuzzDecode(f *testing.F) {
	f.Add(sample(f))
	f.Add([]byte(Magic))
	f.Add([]byte("SLMF\x01\x01x\x02{}\x00"))
	if b, err := Encode("m", map[string]any{}); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(data)
		if err != nil {
			return
		}
		var meta any
		if err := file.UnmarshalMeta(&meta); err != nil {
			t.Fatalf("accepted metadata that does not decode: %v", err)
		}
		again, err := Encode(file.ID, file.Meta, file.Sections...)
		if err != nil {
			t.Fatalf("a decoded file does not encode: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("decode then encode changed the bytes")
		}
	})
}

// TestMetaIsCompact: the metadata is stored as encoding/json writes it, and a file whose
// metadata is not (it could not come from Encode) is refused, so a decoded file always encodes
// back to the same bytes.
func TestMetaIsCompact(t *testing.T) {
	var b []byte
	b = append(b, Magic...)
	b = binary.AppendUvarint(b, Version)
	b = appendBytes(b, []byte("m"))
	b = appendBytes(b, []byte(`{ "a": 1 }`))
	b = binary.AppendUvarint(b, 0)
	if _, err := Decode(b); !errors.Is(err, ErrFormat) {
		t.Fatalf("Decode of spaced metadata = %v, want ErrFormat", err)
	}
}

func TestLists(t *testing.T) {
	for _, tc := range []struct {
		name    string
		meta    any
		want    map[string]string
		wantErr bool
	}{
		{"Recorded", meta{Command: "c", Lists: map[string]string{"a.txt": "1"}}, map[string]string{"a.txt": "1"}, false},
		{"None", meta{Command: "c"}, nil, false},
		{"NotAnObject", map[string]any{ListsKey: []string{"a.txt"}}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode("m", tc.meta)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.Lists()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Lists error = %v, want error %v", err, tc.wantErr)
			}
			if len(got) != len(tc.want) || got["a.txt"] != tc.want["a.txt"] {
				t.Errorf("Lists = %v, want %v", got, tc.want)
			}
		})
	}
}
