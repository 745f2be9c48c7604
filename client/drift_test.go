package client_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/client"
)

// TestTypesMatchOpenAPI fails when the client's types drift from the OpenAPI document the server
// is validated against (internal/api/openapi.json): every property of every mirrored schema
// must be a field (by its JSON name) of the mirroring type and every field a property, with a
// compatible type, a $ref mirrored by the same type the referenced schema is, and every enum
// equal to the client's constants. A schema added to the document fails the test until it is
// mirrored here or listed as not mirrored, with why.
func TestTypesMatchOpenAPI(t *testing.T) {
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "internal", "api", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]*schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas

	mirrored := map[string]reflect.Type{
		"RunRequest":      reflect.TypeFor[client.RunRequest](),
		"Input":           reflect.TypeFor[client.Input](),
		"Step":            reflect.TypeFor[client.Step](),
		"StopIf":          reflect.TypeFor[client.StopIf](), // oneOf: the union of the forms
		"RunResponse":     reflect.TypeFor[client.RunResponse](),
		"Payload":         reflect.TypeFor[client.Payload](),
		"Error":           reflect.TypeFor[client.Error](),
		"StepResult":      reflect.TypeFor[client.StepResult](), // oneOf by kind: checked below
		"TransformResult": reflect.TypeFor[client.TransformResult](),
		"ClassifyResult":  reflect.TypeFor[client.ClassifyResult](),
		"ExtractResult":   reflect.TypeFor[client.ExtractResult](),
		"BillingLine":     reflect.TypeFor[client.BillingLine](),
		"Usage":           reflect.TypeFor[client.Usage](),
		"AuditStep":       reflect.TypeFor[client.AuditStep](),
		"Audit":           reflect.TypeFor[client.Audit](),
		"Param":           reflect.TypeFor[client.Param](),
		"Descriptor":      reflect.TypeFor[client.Descriptor](),
		"ServiceList":     reflect.TypeFor[client.ServiceList](),
		"UsageReport":     reflect.TypeFor[client.UsageReport](),
		"TraceID":         reflect.TypeFor[string](),
	}
	notMirrored := map[string]string{
		"DuplicateResponse": "decoded as a RunResponse with status duplicate (checked below to be a subset of it)",
		"ErrorBody":         "the error envelope, read inside the client and returned as an *Error",
		"RunRejection":      "a rejected run, read as the error envelope and returned as an *Error",
	}
	for name := range schemas {
		if _, ok := mirrored[name]; !ok && notMirrored[name] == "" {
			t.Errorf("schema %s is neither mirrored by a client type nor listed as not mirrored", name)
		}
	}
	for name := range mirrored {
		if schemas[name] == nil {
			t.Errorf("the client mirrors schema %s, which the document no longer has", name)
		}
	}
	for name, typ := range mirrored {
		s := schemas[name]
		if s == nil || typ.Kind() != reflect.Struct || name == "StepResult" {
			continue
		}
		props := s.properties()
		checkStruct(t, name, typ, props, mirrored, schemas, name == "RunRequest" || name == "Input" || name == "Step")
		if name == "Descriptor" {
			checkStruct(t, "Descriptor.model", reflect.TypeFor[client.Model](), props["model"].properties(), mirrored, schemas, false)
		}
	}

	// StepResult: one form per kind, each the mirrored result of that kind.
	kinds := map[string]string{}
	for _, f := range schemas["StepResult"].OneOf {
		ref := refName(f.Ref)
		kinds[schemas[ref].Properties["kind"].Const] = ref
	}
	wantKinds := map[string]string{client.KindTransform: "TransformResult", client.KindClassify: "ClassifyResult", client.KindExtract: "ExtractResult"}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("StepResult kinds = %v, the client decodes %v", kinds, wantKinds)
	}
	for _, f := range []string{"Transform", "Classify", "Extract"} {
		if _, ok := reflect.TypeFor[client.StepResult]().FieldByName(f); !ok {
			t.Errorf("StepResult has no field %s", f)
		}
	}

	// A duplicate is decoded as a RunResponse, so its properties must be a subset.
	for p := range schemas["DuplicateResponse"].Properties {
		if _, ok := jsonFields(reflect.TypeFor[client.RunResponse]())[p]; !ok {
			t.Errorf("DuplicateResponse.%s is not a field of RunResponse", p)
		}
	}

	// Enums against the client's constants.
	consts := constants(t)
	statuses := append(schemas["RunResponse"].Properties["status"].Enum, schemas["DuplicateResponse"].Properties["status"].Const)
	for _, e := range []struct {
		what   string
		prefix string
		values []string
	}{
		{"Error.code", "Code", schemas["Error"].Properties["code"].Enum},
		{"RunResponse.status and DuplicateResponse.status", "Status", statuses},
		{"RunResponse.halt_reason", "Halt", schemas["RunResponse"].Properties["halt_reason"].Enum},
		{"ClassifyResult.verdict", "Verdict", schemas["ClassifyResult"].Properties["verdict"].Enum},
		{"AuditStep.verdict", "Verdict", schemas["AuditStep"].Properties["verdict"].Enum},
		{"Descriptor.kind", "Kind", schemas["Descriptor"].Properties["kind"].Enum},
	} {
		got := slices.Sorted(slices.Values(e.values))
		if want := consts[e.prefix]; !slices.Equal(got, want) {
			t.Errorf("%s and the client's %s constants differ: only in the document %q; only in the client %q",
				e.what, e.prefix, minus(got, want), minus(want, got))
		}
	}
}

// minus returns the elements of a that are not in b.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// schema is the part of a JSON Schema the comparison reads.
type schema struct {
	Type       any                `json:"type"` // a string or a list of them
	Ref        string             `json:"$ref"`
	Const      string             `json:"const"`
	Enum       []string           `json:"enum"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	AddlProps  any                `json:"additionalProperties"`
	OneOf      []*schema          `json:"oneOf"`
}

// properties returns the schema's properties, or the union of its oneOf forms'.
func (s *schema) properties() map[string]*schema {
	if len(s.OneOf) == 0 {
		return s.Properties
	}
	out := map[string]*schema{}
	for _, f := range s.OneOf {
		for k, v := range f.Properties {
			out[k] = v
		}
	}
	return out
}

// types returns the schema's type names, without "null".
func (s *schema) types() []string {
	switch v := s.Type.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if x != "null" {
				out = append(out, x.(string))
			}
		}
		return out
	}
	return nil
}

func refName(ref string) string { return strings.TrimPrefix(ref, "#/components/schemas/") }

// jsonFields returns typ's fields by JSON name, without those the JSON leaves out ("-").
func jsonFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// checkStruct compares typ's JSON fields with props both ways. With request set, a required
// property must not be left out when empty (omitempty), or a zero value would be sent missing.
func checkStruct(t *testing.T, name string, typ reflect.Type, props map[string]*schema, mirrored map[string]reflect.Type, schemas map[string]*schema, request bool) {
	t.Helper()
	fields := jsonFields(typ)
	for p, ps := range props {
		f, ok := fields[p]
		if !ok {
			t.Errorf("%s.%s: the client's %s has no field for it", name, p, typ.Name())
			continue
		}
		if why := compatible(ps, f.Type, mirrored, schemas); why != "" {
			t.Errorf("%s.%s: field %s.%s is %s: %s", name, p, typ.Name(), f.Name, f.Type, why)
		}
	}
	for j, f := range fields {
		if _, ok := props[j]; !ok {
			t.Errorf("%s.%s (field %s) is not in the schema %s", typ.Name(), f.Name, j, name)
		}
	}
	if request {
		s := schemas[name]
		for _, r := range s.Required {
			if f, ok := fields[r]; ok && strings.Contains(f.Tag.Get("json"), "omitempty") {
				t.Errorf("%s.%s is required, but field %s is omitempty", name, r, f.Name)
			}
		}
	}
}

var (
	rawType  = reflect.TypeFor[json.RawMessage]()
	timeType = reflect.TypeFor[time.Time]()
)

// compatible returns why a Go type cannot hold the schema's values, or "".
func compatible(s *schema, typ reflect.Type, mirrored map[string]reflect.Type, schemas map[string]*schema) string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if s.Ref != "" {
		want := mirrored[refName(s.Ref)]
		if want == nil {
			return "it refers to " + refName(s.Ref) + ", which no client type mirrors"
		}
		if typ != want {
			return "it refers to " + refName(s.Ref) + ", mirrored by " + want.String()
		}
		return ""
	}
	if typ == rawType {
		return "" // any JSON
	}
	ts := s.types()
	if len(ts) == 0 && (s.Const != "" || len(s.Enum) > 0) {
		ts = []string{"string"}
	}
	if len(ts) != 1 {
		return "the schema allows " + strconv.Quote(strings.Join(ts, "|")) + "; only json.RawMessage holds that"
	}
	switch k := typ.Kind(); ts[0] {
	case "string":
		if k != reflect.String && typ != timeType {
			return "not a string"
		}
	case "integer":
		if k < reflect.Int || k > reflect.Uint64 {
			return "not an integer type"
		}
	case "number":
		if k != reflect.Float64 && k != reflect.Float32 {
			return "not a float type"
		}
	case "array":
		if k != reflect.Slice {
			return "not a slice"
		}
		if s.Items != nil {
			if why := compatible(s.Items, typ.Elem(), mirrored, schemas); why != "" {
				return "items: " + why
			}
		}
	case "object":
		switch k {
		case reflect.Map:
			if as, ok := s.AddlProps.(map[string]any); ok {
				b, _ := json.Marshal(as)
				var sub schema
				_ = json.Unmarshal(b, &sub)
				if why := compatible(&sub, typ.Elem(), mirrored, schemas); why != "" {
					return "values: " + why
				}
			}
		case reflect.Struct:
		default:
			return "not a map or a struct"
		}
	default:
		return "unknown schema type " + ts[0]
	}
	return ""
}

// constants returns the package's string constants by prefix (Code, Status, Halt, Verdict,
// Kind), each list sorted, read from its source.
func constants(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					for _, p := range []string{"Code", "Status", "Halt", "Verdict", "Kind"} {
						if strings.HasPrefix(id.Name, p) {
							out[p] = append(out[p], v)
						}
					}
				}
			}
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}
