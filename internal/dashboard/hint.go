package dashboard

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sluice-api/sluice/internal/services"
)

// paramsHint is the playground's message for step n whose parameters are not a JSON object. It
// names the parameters the chosen service really has, from its descriptor, with an example
// made of one of them and a value the service accepts.
func paramsHint(reg *services.Registry, n int, service string) string {
	msg := fmt.Sprintf("The parameters of step %d are not a JSON object.", n)
	_, d, ok := reg.Lookup(service)
	if !ok {
		return msg + " Leave them empty for the service's defaults."
	}
	if len(d.Params) == 0 {
		return msg + " " + d.Name + " takes no parameters: leave them empty."
	}
	names := make([]string, 0, len(d.Params))
	for name := range d.Params {
		names = append(names, name)
	}
	sort.Strings(names)
	name, value := exampleParam(d.Params, names)
	list := names[0]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return fmt.Sprintf("%s %s takes %s, e.g. {%q: %s}; leave them empty for the defaults.", msg, d.Name, list, name, value)
}

// exampleParam picks the parameter that makes the clearest example, and a value for it: the
// first (by name) with a string or number default, else the first array with a default that
// is not empty, else the first array, given its first allowed item when it has any.
func exampleParam(params map[string]services.Param, names []string) (string, string) {
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			return "null"
		}
		return string(b)
	}
	for _, name := range names {
		if p := params[name]; p.Type != services.ParamArray {
			return name, enc(p.Default)
		}
	}
	for _, name := range names {
		if items, ok := params[name].Default.([]string); ok && len(items) > 0 {
			return name, enc(items)
		}
	}
	p := params[names[0]]
	if len(p.Allowed) > 0 {
		return names[0], enc([]string{p.Allowed[0]})
	}
	return names[0], enc(p.Default)
}
