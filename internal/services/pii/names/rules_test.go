package names

import (
	"context"
	"slices"
	"testing"
)

func TestInitials(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("maas", Surname)
	b.Add("nord", Surname)
	b.Add("introduction", Common)
	checkRule(t, b.Build(), markInitials, []labelCase{
		{"InitialParticle", "wed. van A. van Pelt, oud", []uint8{O, O, O, O, O, O}, []uint8{O, O, B, I, I, O}},
		{"TwoInitialsParticles", "J. W. ten Brink kwam", []uint8{O, O, O, O, O}, []uint8{B, I, I, I, O}},
		{"TwoInitialsSurname", "bij A. W. Maas te", []uint8{O, O, O, O, O}, []uint8{O, B, I, I, O}},
		{"OneInitialSurname", "Château ( T. Nord 39 )", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"Heading", "A. B. Introduction", []uint8{O, O, O}, []uint8{O, O, O}},
		{"TaggedFromParticle", "A. van Pelt", []uint8{O, B, I}, []uint8{B, I, I}},
		{"AlreadyTagged", "A. van Pelt", []uint8{B, I, I}, []uint8{B, I, I}},
		{"ParticleThenLowerCase", "A. van de kerk", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"InitialParticleRoleWord", "A. van Dokter jd.", []uint8{O, O, O, O}, []uint8{B, I, I, O}},
		{"GermanGenitiveNoun", "K. des Uhrenmachers kam", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"ParticleDes", "J. des Tombe kam", []uint8{O, O, O, O}, []uint8{B, I, I, O}},
		{"InitialParticleFunctionWord", "A. van Son jd.", []uint8{O, O, O, O}, []uint8{B, I, I, O}},
		{"InitialParticleLowerFunctionWord", "A. van son jd.", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"InitialRoleWord", "A. W. Dokter kwam", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"NoPeriod", "A van Pelt", []uint8{O, O, O}, []uint8{O, O, O}},
		{"NextLine", "A. van\nPelt", []uint8{O, O, O}, []uint8{O, O, O}},
		{"TwoInitialsUnknownWord", "tot lid F. J. Pompe, weth.", []uint8{O, O, O, O, O, O}, []uint8{O, O, B, I, I, O}},
		{"GluedInitialsUnknownWord", "the U.S. Olympic team", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"InitialBeforeTagged", "A. Somers geb. Thai", []uint8{O, B, O, O}, []uint8{B, I, O, O}},
		{"InitialsParticleBeforeTagged", "H. M. van Dijk gob.", []uint8{O, O, B, I, O}, []uint8{B, I, I, I, O}},
		{"MonsieurBeforeTagged", "M. Dupont a dit", []uint8{O, B, O, O}, []uint8{O, B, O, O}},
		{"MiddleInitialBeforeTagged", "Faina D. Yefremova wrote", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
	})
}

func TestAfterOffices(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("tafel", Common)
	b.Add("charlotte", Given)
	checkRule(t, b.Build(), afterOffices, []labelCase{
		{"LowerCaseDutch", "de minister Thorbecke sprak", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"GermanCompound", "Außenminister Stresemann erklärte", []uint8{O, O, O}, []uint8{O, B, O}},
		{"FrenchLowerCase", "le général Chanzy est", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"CapitalisedStemAlone", "General Motors said", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Particle", "minister van Financiën", []uint8{O, O, O}, []uint8{O, O, O}},
		{"CommonWord", "minister Tafel", []uint8{O, O}, []uint8{O, O}},
		{"Place", "minister Frankrijk", []uint8{O, O}, []uint8{O, O}},
		{"Cabinet", "het kabinet Rutte viel", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"CabinetGermanArticle", "das Kabinett Scholz", []uint8{O, O, O}, []uint8{O, O, B}},
		{"CabinetCapitalised", "Cabinet Office said", []uint8{O, O, O}, []uint8{O, O, O}},
		{"PlaceThatIsGivenName", "met prinses Charlotte huwde", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"PlaceThatIsGivenNameAlone", "naar Charlotte reisde", []uint8{O, O, O}, []uint8{O, O, O}},
		{"AfterComma", "der Minister, Stresemann", []uint8{O, O, O}, []uint8{O, O, O}},
		{"ShortCompound", "Exminister Stresemann", []uint8{O, O}, []uint8{O, B}},
		{"RoleParticle", "generaal de Chazal sprak", []uint8{O, O, O, O}, []uint8{O, B, I, O}},
		{"RoleTwoParticles", "le ministre de la Guerre", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"RoleVan", "minister van Oorlog", []uint8{O, O, O}, []uint8{O, O, O}},
		{"GermanArticle", "an dem Aufseher Reinicke", []uint8{O, O, O, O}, []uint8{O, O, O, B}},
		{"EnglishArticle", "the General Motors plant", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
	})
}

// TestRulesTable checks the table of rules: every rule says what it does and what it was
// measured to change, names are unique, and WithoutRules knows them and no others.
func TestRulesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules {
		if r.name == "" || r.does == "" || r.worth == "" || r.apply == nil || seen[r.name] {
			t.Errorf("rule %q: incomplete or repeated", r.name)
		}
		seen[r.name] = true
	}
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WithoutRules("no-such-rule"); err == nil {
		t.Error("WithoutRules accepted an unknown rule")
	}
	off, err := m.WithoutRules(RuleNames...)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.without) != 0 {
		t.Error("WithoutRules changed the model it was called on")
	}
	// A rule switched off no longer runs: with every rule off, labels are the tagger's alone.
	text := "Gisteren sprak de heer van Zuylen met minister Thorbecke."
	toks := Tokenize(text)
	all, err := m.labels(context.Background(), text, toks)
	if err != nil {
		t.Fatal(err)
	}
	none, err := off.labels(context.Background(), text, toks)
	if err != nil {
		t.Fatal(err)
	}
	f := featurizer{text: text, toks: toks, gaz: m.gaz, info: analyse(text, toks, m.gaz, nil)}
	want := slices.Clone(none)
	applyRules(&f, want)
	if !slices.Equal(all, want) {
		t.Errorf("labels %v, want the tagger's %v with the rules applied: %v", all, none, want)
	}
}
