// Package textclass scores text with small, calibrated, multi-head linear classifiers over hashed
// word and character n-grams of normalized text: the model core shared by the trained guardrail
// services (security.jailbreak.shield, security.toxicity.flag).
//
// # Features
//
// A text is put in normal form by textnorm.Normalize (NFKC, case folding, invisible characters
// removed, accents stripped from Latin letters, homoglyphs and leetspeak undone, letter-spaced
// words re-joined) and, when Spec.DecodeBlobs is set, the readable text of its base64 and hex
// blobs is normalized too, as separate segments whose words carry textnorm.FlagEncoded. Each word
// contributes its hashed features: the word itself, the word pair and triple ending at it
// (Spec.WordNgrams), and its character n-grams of Spec.CharMin to Spec.CharMax runes with "<" and
// ">" marking its ends; optional features (off unless the spec sets them) are a second copy of
// the word n-grams in long segments (Spec.LongSegment) and the script of the word's first letter
// (Spec.Script). Hashes are 64-bit (FNV-1a, finalized); a head with b bits looks a
// feature up in slot hash>>(64-b).
//
// # Windows
//
// Long texts are never truncated. A segment of at most Spec.Window words is one window; a longer
// one is covered by windows of Spec.Window words starting every Spec.Stride words (the last one
// ends at the segment's end), so any passage of up to Window-Stride+1 words lies wholly inside
// one window. A window's feature vector holds each distinct feature's count divided by the square
// root of the window's total feature count (or by its Spec.NormPower-th power; below a
// Spec.NormKnee, by the count itself, scaled to meet that at the knee). Score returns the maximum over all windows of the
// primary head's calibrated probability, so an attack in the middle of a long document is scored
// as if it were alone in its window. Because the model is linear and the normalization depends
// only on the count, a window's score comes from prefix sums over the words: Score is linear in
// the text's length whatever the stride, and checks its context every 4,096 bytes and words.
//
// # Heads and calibration
//
// A Model holds one or more heads over the same features. Heads[0] is the primary head (P(toxic),
// P(attack)); the others usually say which kind (one head per label, trained on the positive
// examples only) and are read on the primary head's best window with HeadProbabilities, only
// when the caller needs them. A head's raw score is z = Bias + sum(weight * value), and its
// probability is 1/(1+exp(-(PlattA*z+PlattB))): Platt scaling fitted on held-out data by the
// trainer, so that the probability is calibrated. Weights are quantized to one byte per slot
// (a 256-value codebook per head, 0 meaning "unseen"), which keeps the table of a 2^20-slot head
// at 1 MiB, in memory and in the embedded file alike (stored uncompressed, copied once).
//
// Optionally (Model.Deep, "wide and deep"), a small network over the same window features (an
// embedding bag of int8 rows, a ReLU layer, a linear output) adds z_deep to the primary head's
// raw score before its Platt scaling; its per-word embedding sums are exact integers kept as
// prefix sums like the linear weights, so Score stays linear in the text's length. Models
// without one (every model file without a "deep" header field) score as before.
//
// # Using a model in a service
//
//	//go:embed shield.model
//	var modelFile []byte
//
//	var loadModel = sync.OnceValues(func() (*textclass.Model, error) { return textclass.Decode(modelFile) })
//
//	func (s *Service) Run(ctx context.Context, req services.Request) (services.Result, error) {
//		res, err := s.model.Score(ctx, req.Payload.Value)
//		if err != nil {
//			return services.Result{}, fmt.Errorf("shield: %w", err) // wraps ctx.Err()
//		}
//		var labels []string
//		if res.P >= threshold-services.UncertaintyBand {
//			probs := s.model.HeadProbabilities(res) // probs[k] belongs to s.model.Heads[k]
//			...
//		}
//		return services.ClassifyResult(req, res.P, labels), nil
//	}
//
// A decoded Model is read-only and safe for concurrent use; Score keeps per-call buffers in a
// pool, so a steady load allocates little.
//
// # Training a model
//
// Trainers live under scripts/ and use scripts/internal/lrtrain. Spec.Windows gives, for any
// text, exactly the windows and feature vectors Score will see; lrtrain fits a head on them
// (deterministic L-BFGS logistic regression with L2 and example weights, Platt calibration on a
// held-out split); NewHead quantizes its weights; Model.Encode writes the file byte for byte the
// same for the same inputs. A deep part is fitted by scripts/internal/mlptrain on the linear
// head's out-of-fold scores. The file format is documented on Encode.
package textclass
