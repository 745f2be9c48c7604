package dashboard

import (
	"encoding/json"
	"net/http"
	"sort"
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
	Bounds      string // services.Param.BoundsText
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
			def, _ := json.Marshal(p.Default)
			v.Params = append(v.Params, paramView{
				Name: pn, Type: p.TypeText(), Default: string(def), Allowed: p.Allowed, Bounds: p.BoundsText(), Description: p.Description,
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

func (h *Handler) servicesPage(w http.ResponseWriter, r *http.Request, s *session) {
	h.renderAs(w, r, s, http.StatusOK, "services", page{Title: "Services", Nav: "services", Data: h.catalog()})
}
