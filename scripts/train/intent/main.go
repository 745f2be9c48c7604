// Command intent trains the routing.intent.map models, one file per catalog, written next to the
// service (internal/services/intent/<catalog>.model):
//
//	go run ./scripts/train/intent
//
// Each model is a one-hidden-layer network (embedding bag of hashed word, word-bigram and
// character n-gram features, ReLU, softmax) with one extra class for out-of-scope requests,
// trained by stochastic gradient descent with word dropout, then quantised (embeddings to 4 bits, the output layer to 8). The "no
// intent" threshold is then chosen on a validation part the model never saw (see data.go for the
// splits). The test splits are never read here. The run is deterministic on one architecture:
// the same data and flags give the same bytes.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluice-api/sluice/internal/services/intent/model"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// options are the training hyper-parameters, chosen on the validation parts.
type options struct {
	seed     uint64
	epochs   int
	rate     float64 // initial SGD step, decayed linearly to 0
	dropout  float64 // share of words dropped from a training utterance, per epoch
	l2       float64 // weight decay of the output layer
	hidden   int     // width of the hidden layer
	minCount int     // utterances a feature must occur in to get an embedding
	recall   float64 // out-of-scope recall the threshold must reach on the validation part
}

func main() {
	data := evalkit.DataFlag()
	out := flag.String("out", filepath.Join("internal", "services", "intent"), "directory the model files are written to")
	only := flag.String("catalog", "", "train only this catalog (assistant or banking); default both")
	var o options
	flag.Uint64Var(&o.seed, "seed", 1, "random seed (shuffling and word dropout)")
	flag.IntVar(&o.epochs, "epochs", 30, "SGD epochs")
	flag.Float64Var(&o.rate, "rate", 0.1, "initial SGD step")
	flag.Float64Var(&o.dropout, "dropout", 0.15, "word dropout")
	flag.IntVar(&o.hidden, "hidden", 128, "width of the hidden layer")
	flag.IntVar(&o.minCount, "min-count", 2, "training utterances a feature must occur in to get an embedding")
	flag.Float64Var(&o.recall, "recall", 0.7, "out-of-scope recall the threshold must reach on validation data")
	flag.Float64Var(&o.l2, "l2", 3e-5, "L2 decay of the output layer")
	evalkit.ParseFlags()
	log.SetFlags(0)
	if err := run(*data, *out, *only, o); err != nil {
		log.Fatal(err)
	}
}

func run(data, out, only string, o options) error {
	c, err := loadCLINC(data)
	if err != nil {
		return err
	}
	if only == "" || only == "assistant" {
		if err := build("assistant", assistantSplit(c), o, out); err != nil {
			return err
		}
	}
	if only == "" || only == "banking" {
		s, err := bankingSplit(data, c)
		if err != nil {
			return err
		}
		if err := build("banking", s, o, out); err != nil {
			return err
		}
	}
	return nil
}

func build(catalog string, s split, o options, dir string) error {
	m := train(catalog, s, o)
	b, err := m.Encode()
	if err != nil {
		return err
	}
	shipped, err := model.Decode(b) // tune what ships
	if err != nil {
		return err
	}
	if err := tune(shipped, s.tune, o.recall); err != nil {
		return err
	}
	if len(s.refit) > 0 {
		// Learn from the validation part too, keeping the threshold chosen without it.
		threshold := shipped.Threshold
		full := s
		full.train = append(slices.Clone(s.train), s.refit...)
		if shipped, err = model.Decode(mustEncode(train(catalog, full, o))); err != nil {
			return err
		}
		shipped.Threshold = threshold
		s = full
		log.Printf("%s: refitted on %d training utterances", catalog, len(s.train))
	}
	if b, err = shipped.Encode(); err != nil {
		return err
	}
	path := filepath.Join(dir, catalog+".model")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	log.Printf("%s: %d intents, %d training utterances, %d features x %d hidden, threshold %.2f, %d bytes -> %s",
		catalog, len(shipped.Intents), len(s.train), len(shipped.Features), shipped.Hidden, shipped.Threshold, len(b), path)
	return nil
}

func mustEncode(m *model.Model) []byte {
	b, err := m.Encode()
	if err != nil {
		panic(err) // train builds consistent models
	}
	return b
}

// train fits the network by SGD on the cross-entropy loss: each epoch visits the training set
// in a seeded random order and drops a share of each utterance's words; the step falls linearly
// to zero over the run, and the output layer decays by l2. Only features seen in at least
// o.minCount training utterances get an embedding. The weights start from seeded Gaussians.
func train(catalog string, s split, o options) *model.Model {
	spec := model.DefaultSpec
	k := len(s.intents) + 1 // the last class is "out of scope"
	d := o.hidden
	seen := map[uint32]int{}
	for _, e := range s.train {
		for _, f := range extract(spec, e.text) {
			seen[f.Feature]++
		}
	}
	var feats []uint32
	for f, n := range seen {
		if n >= o.minCount {
			feats = append(feats, f)
		}
	}
	slices.Sort(feats)
	rows := make(map[uint32]int, len(feats))
	for i, f := range feats {
		rows[f] = i
	}

	rng := rand.New(rand.NewPCG(o.seed, uint64(len(s.train))))
	emb := make([]float32, len(feats)*d)
	for i := range emb {
		emb[i] = float32(rng.NormFloat64() * 0.1)
	}
	hb := make([]float32, d)
	out := make([]float32, k*d)
	for i := range out {
		out[i] = float32(rng.NormFloat64() * math.Sqrt(2/float64(d)))
	}
	ob := make([]float32, k)

	order := make([]int, len(s.train))
	for i := range order {
		order[i] = i
	}
	total, step := o.epochs*len(s.train), 0
	h := make([]float32, d)
	gh := make([]float32, d)
	probs := make([]float64, k)
	l2 := float32(o.l2)
	for epoch := range o.epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var loss float64
		for _, i := range order {
			e := s.train[i]
			x := extract(spec, dropWords(e.text, o.dropout, rng))
			rate := float32(o.rate * (1 - float64(step)/float64(total)))
			step++

			// Forward.
			copy(h, hb)
			for _, f := range x {
				if r, ok := rows[f.Feature]; ok {
					for j, v := range emb[r*d : r*d+d] {
						h[j] += f.Value * v
					}
				}
			}
			for j := range h {
				h[j] = max(h[j], 0)
			}
			for c := range probs {
				sum := float64(ob[c])
				for j, v := range out[c*d : c*d+d] {
					sum += float64(v * h[j])
				}
				probs[c] = sum
			}
			softmax(probs)
			y := e.label
			if y == outOfScope {
				y = k - 1
			}
			loss -= math.Log(max(probs[y], 1e-12))
			probs[y]--

			// Backward.
			clear(gh)
			for c, g64 := range probs {
				g := float32(g64)
				w := out[c*d : c*d+d]
				for j := range w {
					gh[j] += g * w[j]
					w[j] -= rate * (g*h[j] + l2*w[j])
				}
				ob[c] -= rate * g
			}
			for j := range gh {
				if h[j] <= 0 {
					gh[j] = 0
				}
				hb[j] -= rate * gh[j]
			}
			for _, f := range x {
				if r, ok := rows[f.Feature]; ok {
					w := emb[r*d : r*d+d]
					for j := range w {
						w[j] -= rate * f.Value * gh[j]
					}
				}
			}
		}
		if epoch%10 == 9 || epoch == o.epochs-1 {
			log.Printf("%s: epoch %d, mean loss %.4f", catalog, epoch+1, loss/float64(len(order)))
		}
	}
	m := &model.Model{Catalog: catalog, Spec: spec, Intents: s.intents, OutOfScope: true, Hidden: d,
		Features: feats, HiddenBias: hb, OutBias: ob}
	m.Emb, m.EmbScale = model.QuantizeRows(emb, d, model.EmbLevels)
	m.Out, m.OutScale = model.QuantizeRows(out, d, model.OutLevels)
	return m
}

func extract(spec model.Spec, text string) []model.Entry {
	x, err := spec.Extract(context.Background(), text)
	if err != nil {
		panic(err) // a background context is never done
	}
	return x
}

// dropWords removes each word with probability p, keeping texts of fewer than three words and
// never dropping every word.
func dropWords(text string, p float64, rng *rand.Rand) string {
	if p <= 0 {
		return text
	}
	words := strings.Fields(text)
	if len(words) < 3 {
		return text
	}
	kept := make([]string, 0, len(words))
	for _, w := range words {
		if rng.Float64() >= p {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return text
	}
	return strings.Join(kept, " ")
}

// softmax turns scores into probabilities in place.
func softmax(p []float64) {
	hi := slices.Max(p)
	var z float64
	for c := range p {
		p[c] = math.Exp(p[c] - hi)
		z += p[c]
	}
	for c := range p {
		p[c] /= z
	}
}

// tune sets m.Threshold to the lowest probability (in steps of 0.01) at which the model answers
// "no intent" for at least recall of the out-of-scope examples of the validation part, and
// logs the in-scope accuracy that costs.
func tune(m *model.Model, exs []example, recall float64) error {
	var in, out []model.Prediction
	var labels []int
	m.Threshold = 0
	for _, e := range exs {
		probs := m.Probabilities(extract(m.Spec, e.text))
		p := m.Decide(probs, 1)
		// Keep the best intent's probability and whether the out-of-scope class won.
		if e.label == outOfScope {
			out = append(out, p)
		} else {
			in = append(in, p)
			labels = append(labels, e.label)
		}
	}
	if len(in) == 0 || len(out) == 0 {
		return fmt.Errorf("tune %s: need in-scope and out-of-scope validation examples", m.Catalog)
	}
	rate := func(t float64) (acc, rec float64) {
		for i, p := range in {
			if p.Intent != model.None && p.Confidence >= t && p.Intent == labels[i] {
				acc++
			}
		}
		for _, p := range out {
			if p.Intent == model.None || p.Confidence < t {
				rec++
			}
		}
		return acc / float64(len(in)), rec / float64(len(out))
	}
	for step := 0; step <= 100; step++ {
		t := float64(step) / 100
		acc, rec := rate(t)
		if step%10 == 0 {
			log.Printf("%s validation: threshold %.2f in-scope accuracy %.4f oos recall %.4f", m.Catalog, t, acc, rec)
		}
		if rec >= recall {
			m.Threshold = t
			log.Printf("%s: chosen threshold %.2f: in-scope accuracy %.4f, oos recall %.4f (n=%d+%d)",
				m.Catalog, t, acc, rec, len(in), len(out))
			return nil
		}
	}
	return fmt.Errorf("tune %s: no threshold reaches oos recall %.2f", m.Catalog, recall)
}
