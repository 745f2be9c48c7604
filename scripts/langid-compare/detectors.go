package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/abadojack/whatlanggo"
	"github.com/pemistahl/lingua-go"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/langid"
)

// detectFunc returns the ISO 639-1 code of a text's language, or "und".
type detectFunc func(text string) (string, error)

// load builds the named detector with every model loaded.
func load(name string) (detectFunc, error) {
	switch name {
	case "sluice":
		return loadSluice()
	case "lingua-low":
		return loadLingua(true), nil
	case "lingua-high":
		return loadLingua(false), nil
	case "whatlanggo":
		return detectWhatlanggo, nil
	}
	return nil, fmt.Errorf("unknown detector %q", name)
}

// loadSluice runs routing.language.detect through its service, with the descriptor's default
// params as the engine would fill them in.
func loadSluice() (detectFunc, error) {
	svc, err := langid.New()
	if err != nil {
		return nil, err
	}
	d := svc.Descriptor()
	params := services.Params{}
	for name, p := range d.Params {
		params[name] = p.Default
	}
	return func(text string) (string, error) {
		res, err := svc.Run(context.Background(), services.Request{
			Payload: services.Payload{Type: services.TypeText, Value: text},
			Params:  params,
		})
		if err != nil {
			return "", err
		}
		det, ok := res.Data.(langid.Detection)
		if !ok {
			return "", fmt.Errorf("result data is %T", res.Data)
		}
		return det.Language, nil
	}, nil
}

// loadLingua builds a lingua-go detector for all its languages with every model preloaded.
func loadLingua(low bool) detectFunc {
	b := lingua.NewLanguageDetectorBuilder().FromAllLanguages().WithPreloadedLanguageModels()
	if low {
		b = b.WithLowAccuracyMode()
	}
	d := b.Build()
	return func(text string) (string, error) {
		l, ok := d.DetectLanguageOf(text)
		if !ok {
			return "und", nil
		}
		return strings.ToLower(l.IsoCode639_1().String()), nil
	}
}

// detectWhatlanggo maps whatlanggo's ISO 639-3 answer to ISO 639-1 (macrolanguage members to
// their macrolanguage, as Sluice v1 did).
func detectWhatlanggo(text string) (string, error) {
	info := whatlanggo.Detect(text)
	if info.Lang < 0 {
		return "und", nil
	}
	switch info.Lang {
	case whatlanggo.Pes:
		return "fa", nil
	case whatlanggo.Ydd:
		return "yi", nil
	}
	if c := info.Lang.Iso6391(); c != "" {
		return c, nil
	}
	return "und", nil
}
