// Command intent trains the routing.intent.map models: one file per catalog, written next to the
// service (internal/services/intent/<catalog>.model.gz). It is deterministic: the same data gives
// the same bytes.
//
//	go run ./scripts/train/intent -data ../shared/data
//
// assistant: CLINC150 train (150 intents); temperature and the "no intent" threshold are fitted on
// CLINC val + oos_val. banking: banking77 train.csv (77 intents); calibration uses a model trained
// on 90% of train, its held-out 10% as in-scope and CLINC oos_val plus CLINC val utterances of
// non-banking domains as out-of-scope. Test splits are never read here.
package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/sluice-api/sluice/internal/services/intent/model"
)

// options are the training hyper-parameters.
type options struct {
	topK   int     // features kept per prototype
	protos int     // prototypes per intent (spherical k-means)
	epochs int     // perceptron refinement passes over the training set
	rate   float64 // perceptron step
	margin float64 // an utterance whose own intent does not win by this margin counts as misranked
	seed   uint64  // k-means seed
	// oosShare is the share of out-of-scope weight in the calibration objective; 1000/5500 is
	// CLINC test's share.
	oosShare float64
}

func main() {
	data := flag.String("data", "../shared/data", "directory of the shared labeled data")
	out := flag.String("out", "internal/services/intent", "directory the model files are written to")
	var o options
	flag.IntVar(&o.topK, "topk", 1500, "features kept per prototype")
	flag.IntVar(&o.protos, "protos", 1, "prototypes per intent")
	flag.IntVar(&o.epochs, "epochs", 10, "perceptron refinement epochs")
	flag.Float64Var(&o.rate, "rate", 0.1, "perceptron refinement step")
	flag.Float64Var(&o.margin, "margin", 0, "perceptron refinement margin")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed for k-means")
	flag.Float64Var(&o.oosShare, "oos-share", 1000.0/5500, "share of out-of-scope weight when fitting the threshold")
	flag.Parse()
	log.SetFlags(0)
	if err := run(*data, *out, o); err != nil {
		log.Fatal(err)
	}
}

type example struct {
	text  string
	label int // index into the catalog's intents, or model.None
}

func run(data, out string, o options) error {
	clinc, err := loadCLINC(filepath.Join(data, "intent", "clinc150"))
	if err != nil {
		return err
	}
	bank, err := loadBanking(filepath.Join(data, "intent", "banking77"))
	if err != nil {
		return err
	}

	// assistant: train on CLINC train, calibrate on val + oos_val.
	asst, err := train("assistant", clinc.intents, clinc.train, o)
	if err != nil {
		return err
	}
	calib := append(slices.Clone(clinc.val), clinc.oosVal...)
	if err := calibrate(asst, calib, o); err != nil {
		return err
	}
	if err := write(out, asst); err != nil {
		return err
	}

	// banking: calibrate a model trained on 90% of train, then train on all of it.
	var fit, held []example
	for i, e := range bank.train {
		if i%10 == 9 {
			held = append(held, e)
		} else {
			fit = append(fit, e)
		}
	}
	probe, err := train("banking", bank.intents, fit, o)
	if err != nil {
		return err
	}
	calib = append(held, clinc.notBanking...)
	if err := calibrate(probe, calib, o); err != nil {
		return err
	}
	full, err := train("banking", bank.intents, bank.train, o)
	if err != nil {
		return err
	}
	full.Temperature, full.Threshold = probe.Temperature, probe.Threshold
	return write(out, full)
}

func write(dir string, m *model.Model) error {
	b, err := m.Encode()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, m.Catalog+".model.gz")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	log.Printf("%s: %d intents, %d prototypes, %d IDF entries, T=%.4f threshold=%.4f, %d bytes -> %s",
		m.Catalog, len(m.Intents), len(m.Prototypes), len(m.IDF), m.Temperature, m.Threshold, len(b), path)
	return nil
}

// train builds an uncalibrated model and returns it as it ships (encoded, then decoded).
func train(catalog string, intents []string, exs []example, o options) (*model.Model, error) {
	ctx := context.Background()
	counts := make([]map[uint32]float32, len(exs))
	df := make(map[uint32]int)
	for i, e := range exs {
		c, err := model.Counts(ctx, e.text)
		if err != nil {
			return nil, err
		}
		counts[i] = c
		for f := range c {
			df[f]++
		}
	}
	n := float64(len(exs))
	idf := func(d int) float32 { return float32(math.Log((1+n)/(1+float64(d))) + 1) }
	m := &model.Model{Catalog: catalog, Intents: intents, IDF: make(map[uint32]float32), DefaultIDF: idf(1)}
	for f, d := range df {
		if d >= 2 {
			m.IDF[f] = idf(d)
		}
	}
	vecs := make([][]model.Entry, len(exs))
	byIntent := make([][]int, len(intents))
	for i, c := range counts {
		vecs[i] = m.Vector(c)
		byIntent[exs[i].label] = append(byIntent[exs[i].label], i)
	}
	rng := rand.New(rand.NewPCG(o.seed, uint64(len(exs))))
	var protos []map[uint32]float32
	var owner []int
	for intent, members := range byIntent {
		if len(members) == 0 {
			return nil, fmt.Errorf("train %s: intent %q has no examples", catalog, intents[intent])
		}
		for _, p := range kmeans(vecs, members, o.protos, rng) {
			protos = append(protos, p)
			owner = append(owner, intent)
		}
	}
	refine(protos, owner, vecs, exs, o)
	for i, p := range protos {
		m.Prototypes = append(m.Prototypes, sparse(owner[i], p, o.topK))
	}
	b, err := m.Encode()
	if err != nil {
		return nil, err
	}
	return model.Decode(b)
}

// dot multiplies a sorted sparse vector with a prototype; summing in v's order keeps the result
// (and so the training run) bit-for-bit reproducible.
func dot(v []model.Entry, p map[uint32]float32) float64 {
	var s float64
	for _, e := range v {
		s += float64(e.Weight) * float64(p[e.Feature])
	}
	return s
}

// normalize scales v to unit length. The squares are summed as fixed-point integers, so the
// result does not depend on map iteration order and the training run is reproducible.
func normalize(v map[uint32]float32) {
	const one = 1 << 40
	var fixed int64
	for _, w := range v {
		fixed += int64(math.Round(float64(w) * float64(w) * one))
	}
	if fixed == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(float64(fixed)/one))
	for f := range v {
		v[f] *= inv
	}
}

func mean(vecs [][]model.Entry, members []int) map[uint32]float32 {
	c := make(map[uint32]float32)
	for _, i := range members {
		for _, e := range vecs[i] {
			c[e.Feature] += e.Weight
		}
	}
	normalize(c)
	return c
}

// kmeans is spherical k-means with a seeded farthest-point start; k=1 is the centroid.
func kmeans(vecs [][]model.Entry, members []int, k int, rng *rand.Rand) []map[uint32]float32 {
	if k <= 1 || len(members) <= k {
		return []map[uint32]float32{mean(vecs, members)}
	}
	centers := []map[uint32]float32{mean(vecs, []int{members[rng.IntN(len(members))]})}
	for len(centers) < k {
		far, farSim := members[0], math.Inf(1)
		for _, i := range members {
			best := math.Inf(-1)
			for _, c := range centers {
				best = max(best, dot(vecs[i], c))
			}
			if best < farSim {
				far, farSim = i, best
			}
		}
		centers = append(centers, mean(vecs, []int{far}))
	}
	for range 10 {
		groups := make([][]int, k)
		for _, i := range members {
			best, bestSim := 0, math.Inf(-1)
			for j, c := range centers {
				if s := dot(vecs[i], c); s > bestSim {
					best, bestSim = j, s
				}
			}
			groups[best] = append(groups[best], i)
		}
		for j, g := range groups {
			if len(g) > 0 {
				centers[j] = mean(vecs, g)
			}
		}
	}
	return centers
}

// refine runs perceptron-style prototype updates: for each misranked training utterance, pull the
// nearest prototype of its intent towards it and push the wrongly winning prototype away.
func refine(protos []map[uint32]float32, owner []int, vecs [][]model.Entry, exs []example, o options) {
	rate := float32(o.rate)
	for range o.epochs {
		errs := 0
		for i, v := range vecs {
			want, got := -1, -1
			wantSim, gotSim := math.Inf(-1), math.Inf(-1)
			for j, p := range protos {
				s := dot(v, p)
				if owner[j] == exs[i].label {
					if s > wantSim {
						want, wantSim = j, s
					}
				} else if s > gotSim {
					got, gotSim = j, s
				}
			}
			if gotSim+o.margin < wantSim {
				continue
			}
			errs++
			for _, e := range v {
				protos[want][e.Feature] += rate * e.Weight
				protos[got][e.Feature] -= rate * e.Weight
			}
			for _, j := range []int{want, got} {
				for f, w := range protos[j] {
					if w <= 0 {
						delete(protos[j], f)
					}
				}
				normalize(protos[j])
			}
		}
		log.Printf("refine: %d of %d misranked", errs, len(vecs))
	}
}

// sparse keeps the topK heaviest features of p, sorted by feature.
func sparse(intent int, p map[uint32]float32, topK int) model.Prototype {
	es := make([]model.Entry, 0, len(p))
	for f, w := range p {
		if w > 0 {
			es = append(es, model.Entry{Feature: f, Weight: w})
		}
	}
	slices.SortFunc(es, func(a, b model.Entry) int {
		if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
			return c
		}
		return cmp.Compare(a.Feature, b.Feature)
	})
	es = es[:min(topK, len(es))]
	slices.SortFunc(es, func(a, b model.Entry) int { return cmp.Compare(a.Feature, b.Feature) })
	out := model.Prototype{Intent: intent}
	for _, e := range es {
		out.Features = append(out.Features, e.Feature)
		out.Weights = append(out.Weights, e.Weight)
	}
	return out
}

// calibrate fits the "no intent" threshold (maximising accuracy with out-of-scope examples
// weighted to o.oosShare of the total) and then the softmax temperature (minimising negative
// log-likelihood, "no intent" being the target of out-of-scope examples).
func calibrate(m *model.Model, exs []example, o options) error {
	ctx := context.Background()
	sims := make([][]float64, len(exs))
	var nIn, nOut float64
	for i, e := range exs {
		s, err := m.Similarities(ctx, e.text)
		if err != nil {
			return err
		}
		sims[i] = s
		if e.label == model.None {
			nOut++
		} else {
			nIn++
		}
	}
	if nIn == 0 || nOut == 0 {
		return errors.New("calibrate: need in-scope and out-of-scope examples")
	}
	wIn, wOut := (1-o.oosShare)/nIn, o.oosShare/nOut
	best, bestScore := 0.0, -1.0
	for t := 0.0; t <= 1.0; t += 0.0025 {
		var score float64
		for i, e := range exs {
			top := slices.Index(sims[i], slices.Max(sims[i]))
			in := sims[i][top] >= t
			switch {
			case e.label == model.None && !in:
				score += wOut
			case e.label != model.None && in && top == e.label:
				score += wIn
			}
		}
		if score > bestScore {
			best, bestScore = t, score
		}
	}
	m.Threshold = best
	bestT, bestNLL := 1.0, math.Inf(1)
	for t := 0.005; t <= 0.5; t *= 1.05 {
		m.Temperature = t
		var nll float64
		for i, e := range exs {
			probs, none := m.Probabilities(sims[i])
			p := none
			if e.label != model.None {
				p = probs[e.label]
			}
			w := wOut
			if e.label != model.None {
				w = wIn
			}
			nll -= w * math.Log(max(p, 1e-12))
		}
		if nll < bestNLL {
			bestT, bestNLL = t, nll
		}
	}
	m.Temperature = bestT

	var inOK, outOK, rawOK float64
	for i, e := range exs {
		if e.label != model.None && slices.Index(sims[i], slices.Max(sims[i])) == e.label {
			rawOK++
		}
		p := m.Decide(sims[i], 0)
		if p.Intent == e.label {
			if e.label == model.None {
				outOK++
			} else {
				inOK++
			}
		}
	}
	log.Printf("%s calibration: threshold=%.4f T=%.4f top-1 acc=%.4f in-scope acc=%.4f oos recall=%.4f (n=%d+%d)",
		m.Catalog, m.Threshold, m.Temperature, rawOK/nIn, inOK/nIn, outOK/nOut, int(nIn), int(nOut))
	return nil
}

type clincData struct {
	intents            []string
	train, val, oosVal []example
	notBanking         []example // val + oos_val outside the banking and credit_cards domains, as out-of-scope
}

func loadCLINC(dir string) (*clincData, error) {
	var raw map[string][][2]string
	if err := readJSON(filepath.Join(dir, "data_full.json"), &raw); err != nil {
		return nil, err
	}
	var domains map[string][]string
	if err := readJSON(filepath.Join(dir, "domains.json"), &domains); err != nil {
		return nil, err
	}
	d := &clincData{}
	seen := map[string]bool{}
	for _, p := range raw["train"] {
		if !seen[p[1]] {
			seen[p[1]] = true
			d.intents = append(d.intents, p[1])
		}
	}
	slices.Sort(d.intents)
	index := make(map[string]int, len(d.intents))
	for i, s := range d.intents {
		index[s] = i
	}
	conv := func(split string, oos bool) ([]example, error) {
		var out []example
		for _, p := range raw[split] {
			e := example{text: p[0], label: model.None}
			if !oos {
				i, ok := index[p[1]]
				if !ok {
					return nil, fmt.Errorf("clinc %s: unknown intent %q", split, p[1])
				}
				e.label = i
			}
			out = append(out, e)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("clinc: split %s is empty", split)
		}
		return out, nil
	}
	var err error
	if d.train, err = conv("train", false); err != nil {
		return nil, err
	}
	if d.val, err = conv("val", false); err != nil {
		return nil, err
	}
	if d.oosVal, err = conv("oos_val", true); err != nil {
		return nil, err
	}
	banking := map[string]bool{}
	for _, dom := range []string{"banking", "credit_cards"} {
		for _, s := range domains[dom] {
			banking[s] = true
		}
	}
	d.notBanking = slices.Clone(d.oosVal)
	for _, p := range raw["val"] {
		if !banking[p[1]] {
			d.notBanking = append(d.notBanking, example{text: p[0], label: model.None})
		}
	}
	return d, nil
}

type bankingData struct {
	intents []string
	train   []example
}

func loadBanking(dir string) (*bankingData, error) {
	d := &bankingData{}
	if err := readJSON(filepath.Join(dir, "categories.json"), &d.intents); err != nil {
		return nil, err
	}
	slices.Sort(d.intents)
	index := make(map[string]int, len(d.intents))
	for i, s := range d.intents {
		index[s] = i
	}
	rows, err := ReadCSV(filepath.Join(dir, "train.csv"))
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		i, ok := index[r[1]]
		if !ok {
			return nil, fmt.Errorf("banking77 train: unknown category %q", r[1])
		}
		d.train = append(d.train, example{text: r[0], label: i})
	}
	return d, nil
}

// ReadCSV reads a two-column text,category file and drops its header.
func ReadCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 2
	var rows [][]string
	for first := true; ; first = false {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if !first {
			rows = append(rows, rec)
		}
	}
	return rows, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}
