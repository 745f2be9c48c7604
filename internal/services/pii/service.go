package pii

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"
	"github.com/sluice-api/sluice/internal/services"
)

// Service names.
const (
	RedactName   = "governance.pii.redact"
	TokenizeName = "governance.pii.tokenize"
)

const (
	version      = 1
	modelID      = "sluice-pii-recognizers-v1"
	modelLicense = "Apache-2.0"
	defaultMask  = "[REDACTED]"
	maxMaskLen   = 64
)

// defaultEntities is the entities parameter's default.
var defaultEntities = []string{TypeName, TypeEmail, TypeID}

const recognizersDoc = "Entity types: name (English-centric rules: honorifics, cue phrases such as " +
	"\"my name is\", and a list of common given names followed by a surname; precision over recall), " +
	"email, iban (per-country length and mod-97), id (national ids with checksums: US SSN, UK NINO, " +
	"Spanish DNI/NIE, Italian codice fiscale, Swedish personnummer; Dutch BSN, French NIR and Indian " +
	"Aadhaar only next to a keyword), phone (libphonenumber, default region US or +international), " +
	"card (Luhn and issuer prefixes) and ip (IPv4 and IPv6). The structured recognizers are " +
	"language-independent."

func entitiesParam() services.Param {
	return services.Param{
		Type:        services.ParamArray,
		Items:       services.ParamString,
		Default:     slices.Clone(defaultEntities),
		Allowed:     slices.Clone(priority[:]),
		MaxLength:   services.Ptr(len(priority)),
		Description: "Entity types to find: name, email, iban, id, phone, card, ip.",
	}
}

func descriptor(name, description string, params map[string]services.Param) services.Descriptor {
	return services.Descriptor{
		Name:        name,
		Kind:        services.KindTransform,
		Version:     version,
		Description: description + " " + recognizersDoc,
		Accepts:     []string{services.TypeText},
		Emits:       services.EmitsSame,
		BillingUnit: "characters",
		Languages:   []string{"en"},
		Params:      params,
		Model:       services.Model{ID: modelID, License: modelLicense},
	}
}

// selfCheck makes sure the phone metadata is usable before the service is offered.
func selfCheck() error {
	n, err := phonenumbers.Parse("+1 650-253-0000", phoneRegion)
	if err != nil {
		return fmt.Errorf("pii: phone metadata: %w", err)
	}
	if !phonenumbers.IsValidNumber(n) {
		return errors.New("pii: phone metadata rejects a known valid number")
	}
	return nil
}

// entities reads the entities parameter (the default when absent) and rejects unknown types.
func entities(p services.Params) ([]string, error) {
	if _, ok := p["entities"]; !ok {
		return defaultEntities, nil
	}
	es := p.Strings("entities")
	for _, e := range es {
		if !slices.Contains(priority[:], e) {
			return nil, fmt.Errorf("pii: unknown entity type %q", e)
		}
	}
	return es, nil
}

func checkText(p services.Payload) error {
	if p.Type != services.TypeText {
		return fmt.Errorf("pii: payload type %q is not text", p.Type)
	}
	return nil
}

// replace rebuilds text with each span replaced by repl(span).
func replace(text string, spans []Span, repl func(Span) string) string {
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.Start])
		b.WriteString(repl(s))
		last = s.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// Redact is governance.pii.redact: it replaces every detected span with a mask.
type Redact struct{}

var _ services.Service = (*Redact)(nil)

// NewRedact returns the redaction service.
func NewRedact() (*Redact, error) {
	if err := selfCheck(); err != nil {
		return nil, err
	}
	return &Redact{}, nil
}

// Descriptor describes governance.pii.redact.
func (*Redact) Descriptor() services.Descriptor {
	return descriptor(RedactName, "Replaces personal data in the text with a mask; changes is the number of spans replaced.",
		map[string]services.Param{
			"entities": entitiesParam(),
			"mask": {
				Type:        services.ParamString,
				Default:     defaultMask,
				MaxLength:   services.Ptr(maxMaskLen),
				Description: "Text that replaces each detected span (may be empty).",
			},
		})
}

// Run redacts req.Payload.
func (*Redact) Run(ctx context.Context, req services.Request) (services.Result, error) {
	if err := checkText(req.Payload); err != nil {
		return services.Result{}, err
	}
	types, err := entities(req.Params)
	if err != nil {
		return services.Result{}, err
	}
	mask := defaultMask
	if _, ok := req.Params["mask"]; ok {
		mask = req.Params.String("mask")
	}
	if utf8.RuneCountInString(mask) > maxMaskLen {
		return services.Result{}, fmt.Errorf("pii: mask longer than %d characters", maxMaskLen)
	}
	spans, err := detect(ctx, req.Payload.Value, types)
	if err != nil {
		return services.Result{}, fmt.Errorf("pii: redact: %w", err)
	}
	out := replace(req.Payload.Value, spans, func(Span) string { return mask })
	return services.Result{
		Payload: services.Payload{Type: services.TypeText, Value: out},
		Changes: len(spans),
	}, nil
}

// Tokenize is governance.pii.tokenize: it replaces every detected span with a typed token that
// is the same for the same value in every call of one account.
type Tokenize struct{}

var _ services.Service = (*Tokenize)(nil)

// NewTokenize returns the tokenization service.
func NewTokenize() (*Tokenize, error) {
	if err := selfCheck(); err != nil {
		return nil, err
	}
	return &Tokenize{}, nil
}

// Descriptor describes governance.pii.tokenize.
func (*Tokenize) Descriptor() services.Descriptor {
	return descriptor(TokenizeName, "Replaces personal data in the text with typed tokens such as [NAME_3f9a2c1b], "+
		"deterministic per account (HMAC-SHA256 of account, entity type and normalised value); "+
		"map gives token to original value.",
		map[string]services.Param{"entities": entitiesParam()})
}

// ErrNoTokenKey is returned when a tokenize request carries no key.
var ErrNoTokenKey = errors.New("pii: tokenize needs a token key")

// Run tokenizes req.Payload.
func (*Tokenize) Run(ctx context.Context, req services.Request) (services.Result, error) {
	if err := checkText(req.Payload); err != nil {
		return services.Result{}, err
	}
	if len(req.TokenKey) == 0 {
		return services.Result{}, ErrNoTokenKey
	}
	types, err := entities(req.Params)
	if err != nil {
		return services.Result{}, err
	}
	text := req.Payload.Value
	spans, err := detect(ctx, text, types)
	if err != nil {
		return services.Result{}, fmt.Errorf("pii: tokenize: %w", err)
	}
	m := make(map[string]string, len(spans))
	mac := hmac.New(sha256.New, req.TokenKey)
	out := replace(text, spans, func(s Span) string {
		value := text[s.Start:s.End]
		tok := token(mac, req.Account, s.Type, value)
		if _, seen := m[tok]; !seen {
			m[tok] = value
		}
		return tok
	})
	return services.Result{
		Payload: services.Payload{Type: services.TypeText, Value: out},
		Changes: len(spans),
		Map:     m,
	}, nil
}

// Token returns the token for value of entity type typ for account under key: "[TYPE_" plus the
// first 4 bytes of HMAC-SHA256(key, account + "\x00" + typ + "\x00" + canonical(value)) in hex
// plus "]". The canonical form makes one value written two ways one token (see Canonical).
func Token(key []byte, account, typ, value string) string {
	return token(hmac.New(sha256.New, key), account, typ, value)
}

func token(mac hash.Hash, account, typ, value string) string {
	mac.Reset()
	mac.Write([]byte(account))
	mac.Write([]byte{0})
	mac.Write([]byte(typ))
	mac.Write([]byte{0})
	mac.Write([]byte(Canonical(typ, value)))
	sum := mac.Sum(nil)
	return "[" + strings.ToUpper(typ) + "_" + hex.EncodeToString(sum[:4]) + "]"
}

// Canonical is the form of a detected value that tokens are computed from: e-mail addresses in
// lower case, IBANs and ids upper case without separators, cards as digits, phones in E.164,
// IPs in net/netip's canonical form, names with single spaces.
func Canonical(typ, value string) string {
	switch typ {
	case TypeEmail:
		return strings.ToLower(value)
	case TypeIBAN:
		return canonicalIBAN(value)
	case TypeCard:
		return canonicalDigits(value)
	case TypeID:
		return canonicalID(value)
	case TypePhone:
		return canonicalPhone(value)
	case TypeIP:
		return canonicalIP(value)
	case TypeName:
		return canonicalName(value)
	}
	return value
}
