package services

import "testing"

func TestParamText(t *testing.T) {
	one, two, lo, hi, neg := 1, 200, 0.0, 1.0, -2.5
	for _, tc := range []struct {
		name   string
		p      Param
		typ    string
		bounds string
	}{
		{"None", Param{Type: ParamString}, "string", ""},
		{"AllowedOnly", Param{Type: ParamString, Allowed: []string{"a", "b"}}, "string", ""},
		{"MinLength", Param{Type: ParamString, MinLength: &one}, "string", "at least 1 character"},
		{"MaxLength", Param{Type: ParamString, MaxLength: &two}, "string", "at most 200 characters"},
		{"LengthRange", Param{Type: ParamString, MinLength: &one, MaxLength: &one}, "string", "1 to 1 character"},
		{"ArrayItems", Param{Type: ParamArray, Items: ParamString, MaxLength: &one}, "array of string", "at most 1 item"},
		{"ArrayAndItems", Param{Type: ParamArray, Items: ParamString, MaxLength: &two, ItemMinLength: &one, ItemMaxLength: &two},
			"array of string", "at most 200 items; each item 1 to 200 characters"},
		{"ItemMax", Param{Type: ParamArray, ItemMaxLength: &one}, "array", "each item at most 1 character"},
		{"ItemMin", Param{Type: ParamArray, ItemMinLength: &one}, "array", "each item at least 1 character"},
		{"NumberRange", Param{Type: ParamNumber, Minimum: &lo, Maximum: &hi}, "number", "0 to 1"},
		{"NumberMin", Param{Type: ParamNumber, Minimum: &neg}, "number", "at least -2.5"},
		{"NumberMax", Param{Type: ParamNumber, Maximum: &hi}, "number", "at most 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.TypeText(); got != tc.typ {
				t.Errorf("TypeText() = %q, want %q", got, tc.typ)
			}
			if got := tc.p.BoundsText(); got != tc.bounds {
				t.Errorf("BoundsText() = %q, want %q", got, tc.bounds)
			}
		})
	}
}
