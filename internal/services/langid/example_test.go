package langid_test

import (
	"context"
	"fmt"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/langid"
)

// A service runs one payload: routing.language.detect keeps the text and answers the language
// with its confidence in Data; candidates narrows the languages it chooses from.
func ExampleService_Run() {
	svc, err := langid.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	d := svc.Descriptor()
	fmt.Println(d.Name, d.Kind)
	req := services.Request{Payload: services.Payload{Type: services.TypeText, Value: "Où est la gare, s'il vous plaît ?"}}
	res, err := svc.Run(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	det := res.Data.(langid.Detection)
	fmt.Println(det.Language, det.Confidence > 0.9, res.Payload.Value == req.Payload.Value)

	req.Params = services.Params{"candidates": []string{"es", "it", "xx"}}
	_, err = svc.Run(context.Background(), req)
	fmt.Println(err)
	req.Params = services.Params{"candidates": []string{"es", "it"}}
	res, _ = svc.Run(context.Background(), req)
	fmt.Println(res.Data.(langid.Detection).Language != "fr")
	// Output:
	// routing.language.detect extract
	// fr true true
	// langid: unsupported candidate "xx"
	// true
}
