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
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// Service names.
const (
	RedactName   = "governance.pii.redact"
	TokenizeName = "governance.pii.tokenize"
)

const (
	version      = 6
	modelID      = names.ModelID
	modelLicense = "Apache-2.0"
	defaultMask  = "[REDACTED]"
	// maxMaskLen bounds the mask, so that a short text of many spans cannot buy a long answer:
	// each span of one character (and its space) becomes at most 16 characters, with the
	// characters JSON spells in 6 bytes refused (see maskOK).
	maxMaskLen = 16

	maxAllow    = 100 // items of the allow param
	maxAllowLen = 200 // code points of one allow item
	maxDeny     = 64  // items of the deny param
	maxDenyLen  = maxDenyRunes
	maxEntities = 7
)

// defaultEntities is the entities parameter's default.
var defaultEntities = []string{TypeName, TypeEmail, TypeID}

// nameLanguages are the languages the name recognizer was trained and evaluated on; the
// structured recognizers do not depend on the language.
var nameLanguages = []string{"de", "en", "es", "fr", "it", "nl", "pl", "pt"}

const recognizersDoc = "Entity types: name (a statistical tagger trained on de, en, es, fr, it, nl, pl and pt " +
	"text with given-name and surname lists of many locales: titles and cue phrases, multi-word, hyphenated " +
	"and particle names, names in lower case in chat; never on numbers, codes or log lines), " +
	"email, iban (per-country length and mod-97), card (12-19 digits, Luhn and issuer ranges, grouped or not), " +
	"phone (libphonenumber: +international for every country, national formats of US, GB, DE, FR, ES, IT, NL, PT, PL, " +
	"AT, CH, BE, IE, SE and FI; a phone keyword such as \"Tel.\" also admits other national formats), " +
	"ip (IPv4 and IPv6) and id (national identifiers with their checksums: US SSN, UK NINO, Spanish DNI/NIE, " +
	"Italian codice fiscale, Swedish personnummer; Dutch BSN, French NIR, German tax id, Polish PESEL, " +
	"Portuguese NIF and Indian Aadhaar only next to their keyword). Overlaps: the longest span wins, then " +
	"the more specific type; every other occurrence of a reported value is reported too."

func entitiesParam() services.Param {
	return services.Param{
		Type:        services.ParamArray,
		Items:       services.ParamString,
		Default:     slices.Clone(defaultEntities),
		Allowed:     Types(),
		MaxLength:   services.Ptr(maxEntities),
		Description: "Entity types to find: name, email, iban, id, phone, card, ip.",
	}
}

func allowParam() services.Param {
	return services.Param{
		Type:          services.ParamArray,
		Items:         services.ParamString,
		Default:       []string{},
		MaxLength:     services.Ptr(maxAllow),
		ItemMinLength: services.Ptr(1),
		ItemMaxLength: services.Ptr(maxAllowLen),
		Description: fmt.Sprintf("Values never replaced: a detected value equal to an item, ignoring case "+
			"and surrounding white space, stays in the text (the whole value must match). At most %d items "+
			"of 1 to %d characters.", maxAllow, maxAllowLen),
	}
}

// Values of the name_recall param.
const (
	recallStandard = "standard"
	recallHigh     = "high"
)

func recallParam() services.Param {
	return services.Param{
		Type:    services.ParamString,
		Default: recallStandard,
		Allowed: []string{recallStandard, recallHigh},
		Description: "How eagerly the name tagger reports names: standard (the operating point chosen for redaction, " +
			"which already favours recall), or high (more of the names, at the cost of more ordinary words masked; " +
			"the model card gives both points' precision and recall).",
	}
}

func denyParam() services.Param {
	return services.Param{
		Type:          services.ParamArray,
		Items:         services.ParamString,
		Default:       []string{},
		MaxLength:     services.Ptr(maxDeny),
		ItemMinLength: services.Ptr(1),
		ItemMaxLength: services.Ptr(maxDenyLen),
		Description: fmt.Sprintf("Literal strings always replaced, as entity type custom (tokens [CUSTOM_...]), "+
			"wherever they occur as whole words, ignoring case; they win over allow. At most %d items of 1 "+
			"to %d characters.", maxDeny, maxDenyLen),
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
		Languages:   slices.Clone(nameLanguages),
		Params:      params,
		Model:       services.Model{ID: modelID, License: modelLicense},
	}
}

// selfCheck makes sure the phone metadata and the name model are usable before the service is
// offered.
func selfCheck() error {
	if _, err := phoneRegions(); err != nil {
		return fmt.Errorf("pii: phone metadata: %w", err)
	}
	if _, ok := parsePhone("16502530000", true); !ok {
		return errors.New("pii: phone metadata rejects a known valid number")
	}
	if _, err := names.Default(); err != nil {
		return fmt.Errorf("pii: name model: %w", err)
	}
	names.Warm()
	return nil
}

// options reads the entities (the default when absent), allow and deny parameters, and checks
// the limits the engine enforces, for callers that do not go through it.
func options(p services.Params) (Options, error) {
	var o Options
	o.Types = defaultEntities
	if _, ok := p["entities"]; ok {
		o.Types = p.Strings("entities")
	}
	for _, e := range o.Types {
		if !slices.Contains(entityTypes, e) {
			return Options{}, fmt.Errorf("pii: unknown entity type %q", e)
		}
	}
	o.Allow, o.Deny = p.Strings("allow"), p.Strings("deny")
	switch r := p.String("name_recall"); r {
	case "", recallStandard:
	case recallHigh:
		o.HighRecall = true
	default:
		return Options{}, fmt.Errorf("pii: unknown name_recall %q", r)
	}
	if err := checkItems("allow", o.Allow, maxAllow, maxAllowLen); err != nil {
		return Options{}, err
	}
	if err := checkItems("deny", o.Deny, maxDeny, maxDenyLen); err != nil {
		return Options{}, err
	}
	return o, nil
}

func checkItems(name string, items []string, maxItems, maxLen int) error {
	if len(items) > maxItems {
		return fmt.Errorf("pii: %s has more than %d items", name, maxItems)
	}
	for _, it := range items {
		if n := utf8.RuneCountInString(it); n < 1 || n > maxLen {
			return fmt.Errorf("pii: %s has an item of %d characters (1 to %d allowed)", name, n, maxLen)
		}
	}
	return nil
}

func checkText(p services.Payload) error {
	if p.Type != services.TypeText {
		return fmt.Errorf("pii: payload type %q is not text", p.Type)
	}
	return nil
}

// replace rebuilds text with each span replaced by repl(span).
//
// With max > 0 the output may hold at most max code points: replace stops as soon as it would
// grow past them and returns services.ErrOutputTooLarge, so a long mask or many tokens cannot
// make the step build an unbounded string.
func replace(text string, spans []Span, repl func(Span) string, max int) (string, error) {
	var b strings.Builder
	b.Grow(len(text))
	last, n := 0, 0
	write := func(s string) bool {
		b.WriteString(s)
		if max > 0 {
			n += utf8.RuneCountInString(s)
		}
		return max <= 0 || n <= max
	}
	for _, s := range spans {
		if !write(text[last:s.Start]) || !write(repl(s)) {
			return "", services.ErrOutputTooLarge
		}
		last = s.End
	}
	if !write(text[last:]) {
		return "", services.ErrOutputTooLarge
	}
	return b.String(), nil
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
	return descriptor(RedactName, "Replaces personal data in the text with a mask; the result's changes counts the spans replaced.",
		map[string]services.Param{
			"entities":    entitiesParam(),
			"allow":       allowParam(),
			"deny":        denyParam(),
			"name_recall": recallParam(),
			"mask": {
				Type:        services.ParamString,
				Default:     defaultMask,
				MaxLength:   services.Ptr(maxMaskLen),
				Description: "Text that replaces each detected span (may be empty; no control characters or line or paragraph separators).",
			},
		})
}

// Run redacts req.Payload.
func (*Redact) Run(ctx context.Context, req services.Request) (services.Result, error) {
	if err := checkText(req.Payload); err != nil {
		return services.Result{}, err
	}
	opts, err := options(req.Params)
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
	if !maskOK(mask) {
		return services.Result{}, errors.New("pii: the mask has a control character or a line or paragraph separator")
	}
	spans, err := find(ctx, req.Payload.Value, opts)
	if err != nil {
		return services.Result{}, fmt.Errorf("pii: redact: %w", err)
	}
	out, err := replace(req.Payload.Value, spans, func(Span) string { return mask }, req.MaxOutputChars)
	if err != nil {
		return services.Result{}, fmt.Errorf("pii: redact: %w", err)
	}
	return services.Result{
		Payload: services.Payload{Type: services.TypeText, Value: out},
		Changes: len(spans),
	}, nil
}

// maskOK reports whether mask is free of the characters an answer's JSON spells as \uXXXX:
// control characters, U+2028 and U+2029. Each would cost six bytes of answer per character.
func maskOK(mask string) bool {
	return !strings.ContainsFunc(mask, func(r rune) bool {
		return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
	})
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
		"the result's map gives each token's original value.",
		map[string]services.Param{"entities": entitiesParam(), "allow": allowParam(), "deny": denyParam(), "name_recall": recallParam()})
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
	opts, err := options(req.Params)
	if err != nil {
		return services.Result{}, err
	}
	text := req.Payload.Value
	spans, err := find(ctx, text, opts)
	if err != nil {
		return services.Result{}, fmt.Errorf("pii: tokenize: %w", err)
	}
	m := make(map[string]string, len(spans))
	mac := hmac.New(sha256.New, req.TokenKey)
	out, err := replace(text, spans, func(s Span) string {
		value := text[s.Start:s.End]
		tok := token(mac, req.Account, s.Type, value)
		if _, seen := m[tok]; !seen {
			m[tok] = value
		}
		return tok
	}, req.MaxOutputChars)
	if err != nil {
		return services.Result{}, fmt.Errorf("pii: tokenize: %w", err)
	}
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
// IPs in net/netip's canonical form, names with single spaces, deny-list (custom) values in
// lower case with single spaces.
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
	case TypeCustom:
		return strings.Map(foldRune, canonicalName(value))
	}
	return value
}
