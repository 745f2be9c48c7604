package dashboard

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/internal/services"
)

// serviceView is a descriptor as the catalog shows it.
type serviceView struct {
	services.Descriptor
	Anchor       string
	Params       []paramView
	OutputSchema string // indented JSON; extract services only
}

type paramView struct {
	Name        string
	Type        string
	Default     string // JSON
	Allowed     []string
	Bounds      string // e.g. "0 to 1", "at most 64 items of 1 to 40 characters"
	Description string
}

// catalog returns every service's view, sorted by name.
func (h *Handler) catalog() []serviceView {
	var out []serviceView
	for _, name := range h.cfg.Registry.Names() {
		_, d, _ := h.cfg.Registry.Lookup(name)
		v := serviceView{Descriptor: d, Anchor: "svc-" + strings.ReplaceAll(d.Name, ".", "-")}
		names := make([]string, 0, len(d.Params))
		for p := range d.Params {
			names = append(names, p)
		}
		sort.Strings(names)
		for _, pn := range names {
			p := d.Params[pn]
			typ := p.Type
			if p.Type == services.ParamArray && p.Items != "" {
				typ = "array of " + p.Items
			}
			def, _ := json.Marshal(p.Default)
			v.Params = append(v.Params, paramView{
				Name: pn, Type: typ, Default: string(def), Allowed: p.Allowed, Bounds: bounds(p), Description: p.Description,
			})
		}
		if len(d.OutputSchema) > 0 {
			var schema any
			if json.Unmarshal(d.OutputSchema, &schema) == nil {
				b, _ := json.MarshalIndent(schema, "", "  ")
				v.OutputSchema = string(b)
			}
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func bounds(p services.Param) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	var parts []string
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		parts = append(parts, f(*p.Minimum)+" to "+f(*p.Maximum))
	case p.Minimum != nil:
		parts = append(parts, "at least "+f(*p.Minimum))
	case p.Maximum != nil:
		parts = append(parts, "at most "+f(*p.Maximum))
	}
	one, many := "character", "characters"
	if p.Type == services.ParamArray {
		one, many = "item", "items"
	}
	// n writes a count with its noun: "1 character", "64 items".
	n := func(k int, one, many string) string { return strconv.Itoa(k) + " " + plural(int64(k), one, many) }
	switch {
	case p.MinLength != nil && p.MaxLength != nil:
		parts = append(parts, strconv.Itoa(*p.MinLength)+" to "+n(*p.MaxLength, one, many))
	case p.MinLength != nil:
		parts = append(parts, "at least "+n(*p.MinLength, one, many))
	case p.MaxLength != nil:
		parts = append(parts, "at most "+n(*p.MaxLength, one, many))
	}
	switch {
	case p.ItemMinLength != nil && p.ItemMaxLength != nil:
		parts = append(parts, "each item "+strconv.Itoa(*p.ItemMinLength)+" to "+n(*p.ItemMaxLength, "character", "characters"))
	case p.ItemMaxLength != nil:
		parts = append(parts, "each item at most "+n(*p.ItemMaxLength, "character", "characters"))
	case p.ItemMinLength != nil:
		parts = append(parts, "each item at least "+n(*p.ItemMinLength, "character", "characters"))
	}
	return strings.Join(parts, "; ")
}

func (h *Handler) servicesPage(w http.ResponseWriter, r *http.Request, s *session) {
	h.renderAs(w, r, s, http.StatusOK, "services", page{Title: "Services", Nav: "services", Data: h.catalog()})
}
