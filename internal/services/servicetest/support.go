package servicetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluice-api/sluice/internal/services"
)

func compileSchema(d services.Descriptor) (*jsonschema.Schema, error) {
	if len(d.OutputSchema) == 0 {
		return nil, fmt.Errorf("extract service %s has no output_schema", d.Name)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.OutputSchema))
	if err != nil {
		return nil, fmt.Errorf("output_schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	url := "sluice:///" + d.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("output_schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("output_schema does not compile: %w", err)
	}
	return sch, nil
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func cloneValue(v any) any {
	if s, ok := v.([]string); ok {
		return slices.Clone(s)
	}
	return v
}
